import Foundation
import ReceptionCore
import ReceptionTransport
import Testing

@Suite struct SSEParserTests {
    @Test func dataOnlyFramesCommentsAndMultiLineData() throws {
        var parser = SSEParser()
        let text = ": keepalive\n\ndata: {\"event\": \"started\"}\n\ndata: line one\ndata: line two\n\n"
        let frames = try parser.feed(Array(text.utf8))
        #expect(frames == [.comment("keepalive"), .event(data: "{\"event\": \"started\"}", name: nil, id: nil),
                           .event(data: "line one\nline two", name: nil, id: nil)])
    }

    @Test func crlfAndCrLineEndsIncludingSplitCRLF() throws {
        var parser = SSEParser()
        var frames = try parser.feed(Array("data: a\r".utf8))
        frames += try parser.feed(Array("\n\r".utf8))
        frames += try parser.feed(Array("\ndata: b\r\r".utf8))
        #expect(frames == [.event(data: "a", name: nil, id: nil), .event(data: "b", name: nil, id: nil)])
    }

    @Test func partialChunksByteByByte() throws {
        var parser = SSEParser()
        let text = "data: {\"event\": \"complete\", \"summary\": \"caf\u{e9}\"}\n\n: ping\n\n"
        var frames: [SSEFrame] = []
        for byte in Array(text.utf8) { frames += try parser.feed([byte]) }
        #expect(frames == [.event(data: "{\"event\": \"complete\", \"summary\": \"caf\u{e9}\"}", name: nil, id: nil), .comment("ping")])
    }

    @Test func fieldsWithoutSpaceEventAndIdAreKept() throws {
        var parser = SSEParser()
        let frames = try parser.feed(Array("event: update\nid: 7\ndata:x\nretry: 10\n\n".utf8))
        #expect(frames == [.event(data: "x", name: "update", id: "7")])
    }

    @Test func brokenUTF8IsAClearError() throws {
        var parser = SSEParser()
        #expect(throws: SSEParser.Failure.self) { try parser.feed([0x64, 0x61, 0x74, 0x61, 0x3A, 0x20, 0xFF, 0xFE, 0x0A]) }
    }

    @Test func anEventSplitOverManyShortLinesIsBoundedToo() throws {
        var parser = SSEParser(maxLineBytes: 64, maxEventBytes: 1_000)
        let line = Array("data: \(String(repeating: "y", count: 50))\n".utf8)
        #expect(throws: SSEParser.Failure.self) {
            for _ in 0..<100 { _ = try parser.feed(line) }
        }
        var fine = SSEParser(maxLineBytes: 64, maxEventBytes: 1_000)
        var frames: [SSEFrame] = []
        for _ in 0..<3 { frames += try fine.feed(line) }
        frames += try fine.feed(Array("id: 7\n\n".utf8))
        #expect(frames.count == 1 && fine.lastEventID == "7")
    }

    @Test func overlongLineIsAnError() throws {
        var parser = SSEParser(maxLineBytes: 16)
        #expect(throws: SSEParser.Failure.self) { try parser.feed(Array(String(repeating: "x", count: 40).utf8)) }
    }

    @Test func unterminatedFrameIsReportedAtEnd() throws {
        var parser = SSEParser()
        #expect(try parser.feed(Array("data: half".utf8)).isEmpty)
        let incomplete = parser.finish()
        #expect(incomplete)
    }

    @Test func errorDetailReadsEveryServerShape() {
        let validation = Data(#"{"detail":[{"type":"missing","loc":["header","x-api-key"],"msg":"Field required","input":null}]}"#.utf8)
        #expect(HTTPTransport.errorDetail(status: 422, body: validation, contentType: "application/json") == "header x-api-key: Field required")
        let nested = Data(#"{"detail":[{"type":"less_than_equal","loc":["body","preferences","trust_level"],"msg":"Input should be less than or equal to 2","input":5}]}"#.utf8)
        #expect(HTTPTransport.errorDetail(status: 422, body: nested, contentType: nil) == "body preferences.trust_level: Input should be less than or equal to 2")
        #expect(HTTPTransport.errorDetail(status: 401, body: Data(#"{"detail":"Invalid API key"}"#.utf8), contentType: nil) == "Invalid API key")
        #expect(HTTPTransport.errorDetail(status: 500, body: Data("Internal Server Error".utf8), contentType: "text/plain") == "Internal Server Error")
        #expect(HTTPTransport.errorDetail(status: 503, body: Data(), contentType: nil) == "Service Unavailable")
        let openAI = Data(#"{"error":{"message":"model not found","type":"invalid_request_error"}}"#.utf8)
        #expect(HTTPTransport.errorDetail(status: 404, body: openAI, contentType: "application/json") == "model not found")
        // TIMEPOINT Flash: the words in `error`, a null `detail` beside them (not the text "null").
        let timepoint = Data(#"{"error":"Insufficient credits. This operation costs 5 credits.","detail":null}"#.utf8)
        #expect(HTTPTransport.errorDetail(status: 402, body: timepoint, contentType: "application/json") == "Insufficient credits. This operation costs 5 credits.")
        // `{"message": …}` (another server answering a wrong URL): the words, not the JSON.
        #expect(HTTPTransport.errorDetail(status: 404, body: Data(#"{"message":"Not Found"}"#.utf8), contentType: "application/json") == "Not Found")
    }
}

/// Servers whose frames end with one newline (OpenAgents' runtime at 562314f4e8): frames run
/// together and the last one never gets its blank line.
@Suite struct SSEUnterminatedFrameTests {
    static let runTogether = "id: 1\nevent: codex.worker.event\ndata: {\"seq\":1}\nid: 2\nevent: codex.worker.event\ndata: {\"seq\":2}\n"

    @Test func aNewIDEndsTheFrameBeforeItAndACleanEndDeliversTheLast() throws {
        var parser = SSEParser(leniency: .unterminatedFrames)
        var frames: [SSEFrame] = []
        for byte in Array(Self.runTogether.utf8) { frames += try parser.feed([byte]) }
        #expect(frames == [.event(data: "{\"seq\":1}", name: "codex.worker.event", id: "1")])
        let end = parser.finishDispatching()
        #expect(end.frame == .event(data: "{\"seq\":2}", name: "codex.worker.event", id: "2"))
        #expect(!end.incomplete)
        #expect(parser.lastEventID == "2")
    }

    @Test func theStandardParserStillJoinsAndDropsThem() throws {
        var parser = SSEParser()
        #expect(try parser.feed(Array(Self.runTogether.utf8)).isEmpty)
        let end = parser.finishDispatching()
        #expect(end.frame == nil)
        #expect(end.incomplete, "an unterminated frame is reported, not delivered")
    }

    @Test func aFinalLineWithoutItsNewlineIsNeverDelivered() throws {
        var parser = SSEParser(leniency: .unterminatedFrames)
        _ = try parser.feed(Array("id: 3\ndata: {\"seq\":3".utf8))
        let end = parser.finishDispatching()
        #expect(end.frame == nil)
        #expect(end.incomplete)
    }

    @Test func blankLinesStillEndFramesAndAnIDBeforeDataSplitsNothing() throws {
        var parser = SSEParser(leniency: .unterminatedFrames)
        let frames = try parser.feed(Array("id: 1\ndata: a\n\nid: 2\nid: 3\ndata: b\n\n".utf8))
        #expect(frames == [.event(data: "a", name: nil, id: "1"), .event(data: "b", name: nil, id: "3")])
    }
}

import Foundation
import ReceptionCore
@testable import ReceptionLoopSymphony
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

    @Test func eventDecodingAcceptsFloatAndIntTimestamps() throws {
        let real = try LoopSymphonyStreamEvent(
            data: #"{"event": "iteration", "iteration_num": 2, "phase": "iteration", "data": {"new_findings": 6, "confidence": 0.948}, "duration_ms": 40, "task_id": "t1", "timestamp": 1795319556.6877093}"#,
            fallbackTaskID: "x")
        guard case .iteration(let id, let n, let phase, let data, let ms, let ts) = real else { Issue.record("not an iteration"); return }
        #expect(id == "t1" && n == 2 && phase == "iteration" && ms == 40 && data?["new_findings"]?.intValue == 6)
        #expect(ts == 1795319556.6877093)
        let guide = try LoopSymphonyStreamEvent(data: #"{"event": "started", "task_id": "abc-123", "timestamp": 1707566400}"#, fallbackTaskID: "x")
        #expect(guide == .started(taskID: "abc-123", timestamp: 1707566400))
        let error = try LoopSymphonyStreamEvent(data: #"{"event": "error", "error": "Task cancelled", "task_id": "t", "timestamp": 1.5}"#, fallbackTaskID: "x")
        #expect(error.isTerminal)
        #expect(throws: BackendError.self) { try LoopSymphonyStreamEvent(data: "{not json", fallbackTaskID: "x") }
        #expect(throws: BackendError.self) { try LoopSymphonyStreamEvent(data: #"{"no_event": 1}"#, fallbackTaskID: "x") }
    }

    @Test func errorDetailReadsEveryServerShape() {
        let validation = Data(#"{"detail":[{"type":"missing","loc":["header","x-api-key"],"msg":"Field required","input":null}]}"#.utf8)
        #expect(LoopSymphonyTransport.errorDetail(status: 422, body: validation, contentType: "application/json") == "header x-api-key: Field required")
        let nested = Data(#"{"detail":[{"type":"less_than_equal","loc":["body","preferences","trust_level"],"msg":"Input should be less than or equal to 2","input":5}]}"#.utf8)
        #expect(LoopSymphonyTransport.errorDetail(status: 422, body: nested, contentType: nil) == "body preferences.trust_level: Input should be less than or equal to 2")
        #expect(LoopSymphonyTransport.errorDetail(status: 401, body: Data(#"{"detail":"Invalid API key"}"#.utf8), contentType: nil) == "Invalid API key")
        #expect(LoopSymphonyTransport.errorDetail(status: 500, body: Data("Internal Server Error".utf8), contentType: "text/plain") == "Internal Server Error")
        #expect(LoopSymphonyTransport.errorDetail(status: 503, body: Data(), contentType: nil) == "Service Unavailable")
    }
}

import ReceptionTransport
import Testing

/// Servers whose frame always ends with its one `data:` line (OpenAgents' runtime at
/// 562314f4e8): the frame is whole when that line ends, whatever follows or does not.
@Suite struct SSEDataLineFramingTests {
    static let leniency = SSEParser.Leniency.unterminatedFrames.union(.dataLineEndsFrame)

    @Test func aFrameIsDeliveredWhenItsDataLineEndsNotWhenTheNextBegins() throws {
        var parser = SSEParser(leniency: Self.leniency)
        #expect(try parser.feed(Array("id: 1\nevent: codex.worker.event\n".utf8)).isEmpty)
        #expect(try parser.feed(Array("data: {\"seq\":1}".utf8)).isEmpty, "not before the line's end")
        #expect(try parser.feed([0x0A]) == [.event(data: "{\"seq\":1}", name: "codex.worker.event", id: "1")])
        #expect(!parser.isMidFrame)
        let end = parser.finishDispatching()
        #expect(end.frame == nil && !end.incomplete, "nothing is left over to deliver twice")
    }

    @Test func eachOfManyFramesComesOutOnceByteByByte() throws {
        var parser = SSEParser(leniency: Self.leniency)
        var frames: [SSEFrame] = []
        var deliveredAt: [Int] = []
        let stream = (1...4).map { "id: \($0)\nevent: codex.worker.event\ndata: {\"seq\":\($0)}\n" }.joined()
        for (offset, byte) in Array(stream.utf8).enumerated() {
            let completed = try parser.feed([byte])
            if !completed.isEmpty { deliveredAt.append(offset) }
            frames += completed
        }
        #expect(frames.map { if case .event(_, _, let id) = $0 { id ?? "" } else { "" } } == ["1", "2", "3", "4"])
        // Each at its own data line's newline: the last one too, with nothing after it.
        #expect(deliveredAt.last == stream.utf8.count - 1)
    }

    @Test func aBlankLineAfterTheDataLineAddsNothing() throws {
        var parser = SSEParser(leniency: Self.leniency)
        let frames = try parser.feed(Array("id: 1\ndata: {\"a\":1}\n\nid: 2\ndata: {\"a\":2}\n\n".utf8))
        #expect(frames == [.event(data: "{\"a\":1}", name: nil, id: "1"), .event(data: "{\"a\":2}", name: nil, id: "2")])
    }

    @Test func aDataLineCutBeforeItsEndIsNeverDelivered() throws {
        var parser = SSEParser(leniency: Self.leniency)
        _ = try parser.feed(Array("id: 7\nevent: codex.worker.event\ndata: {\"seq\":7,\"payl".utf8))
        let end = parser.finishDispatching()
        #expect(end.frame == nil)
        #expect(end.incomplete)
    }

    @Test func anErrorFrameKeepsItsEventName() throws {
        var parser = SSEParser(leniency: Self.leniency)
        let frames = try parser.feed(Array("event: error\ndata: {\"error\":{\"code\":\"runtime_codex_stream_failed\"}}\n\n".utf8))
        #expect(frames == [.event(data: "{\"error\":{\"code\":\"runtime_codex_stream_failed\"}}", name: "error", id: nil)])
    }
}

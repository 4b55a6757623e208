import Foundation
import ReceptionCore
import ReceptionLoopSymphony
import Testing

@Suite struct StreamEventTests {
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

}

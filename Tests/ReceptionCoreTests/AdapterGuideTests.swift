import Foundation
import ReceptionCore
import ReceptionTesting
import Testing

// The complete adapter of docs/writing-an-adapter.md. `theGuideShowsThisCode` checks that the
// guide's code block is this file's code, character for character, so the guide cannot drift.

// guide:begin
/// An engine that answers with what it was told, a word at a time.
public struct EchoBackend: Backend {
    public let descriptor: BackendDescriptor
    let pause: Duration

    public init(name: String = "echo", pause: Duration = .milliseconds(50)) {
        descriptor = BackendDescriptor(name: name, summary: "repeats what you say", capabilities: [.textStreaming])
        self.pause = pause
    }

    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        let pause = pause
        return BackendEventStream { continuation in
            let work = Task {
                continuation.yield(.accepted(taskID: request.id, status: .running))
                var text = ""
                for word in request.text.split(separator: " ") {
                    try? await Task.sleep(for: pause)
                    if Task.isCancelled {
                        // The contract: a cancelled task ends with a cancelled failure.
                        continuation.yield(.failure(TaskFailure(taskID: request.id, message: "Task cancelled", cancelled: true)))
                        return continuation.finish()
                    }
                    let chunk = (text.isEmpty ? "" : " ") + word
                    text += chunk
                    continuation.yield(.textDelta(chunk))
                }
                // Exactly one terminal event; it says the text was already streamed.
                continuation.yield(.result(BackendResult(taskID: request.id, outcome: .complete, text: text, textWasStreamed: true)))
                continuation.finish()
            }
            continuation.onTermination = { _ in work.cancel() }
        }
    }
}

/// What the executable lists, and what profiles of kind "echo" configure.
public enum EchoPlugin {
    public static let plugin = BackendPlugin(
        kind: "echo", summary: "repeats what you say, a word at a time",
        options: [PluginOption("pause_ms", .integer(0...5_000), help: "pause before each word, in milliseconds")]
    ) { profile, _ in
        BackendConnection(backend: EchoBackend(name: profile.name, pause: .milliseconds(profile.integer("pause_ms") ?? 50)))
    }
}
// guide:end

@Suite("The adapter guide's example")
struct AdapterGuideTests {
    @Test func theGuideShowsThisCode() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let code = try #require(source.components(separatedBy: "// guide:begin\n").dropFirst().first?.components(separatedBy: "// guide:end").first)
        let guidePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/writing-an-adapter.md").path
        let guide = try String(contentsOfFile: guidePath, encoding: .utf8)
        #expect(guide.contains("```swift\nimport ReceptionCore\n\n" + code + "```"), "docs/writing-an-adapter.md must show the example exactly as it compiles here")
    }

    @Test func theExampleKeepsTheEventContract() async throws {
        let report = await BackendConformance(backend: EchoBackend(pause: .milliseconds(20)), scenarios: .init(
            answered: ReceptionRequest(text: "hello there, engine"),
            slow: ReceptionRequest(text: String(repeating: "word ", count: 200)),
            notApplicable: ["failing": "echo never fails", "unusual": "in process", "dropped": "in process"])).run()
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.passed.count == 2, "\(report)")
    }

    @Test func aProfileOfTheExampleIsValidatedAndConnects() async throws {
        let catalog = BackendCatalog(plugins: [EchoPlugin.plugin], environment: .standard(["HOME": "/nonexistent"]))
        let connection = try await catalog.connect("echo")
        var text = ""
        for try await event in connection.backend.submit(ReceptionRequest(text: "a b")) {
            if case .textDelta(let chunk) = event { text += chunk }
        }
        #expect(text == "a b")
        let raw = RawProfile(name: "slow-echo", kind: "echo", entries: [.init(key: "pause_ms", value: .number(9_000), line: 3)], file: "backends.json")
        guard case .failure(let errors) = EchoPlugin.plugin.validate(raw) else { Issue.record("9000 ms is out of range"); return }
        #expect(errors.description == "backends.json:3: profile \"slow-echo\": pause_ms must be an integer from 0 to 5000; got 9000.")
    }
}

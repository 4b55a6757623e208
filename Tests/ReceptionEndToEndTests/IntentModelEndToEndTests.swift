import Foundation
import ReceptionTestSupport
import Testing

/// A model a person trained, used where they classify: the REPL (an option, or the intent
/// settings file), `classify` and `eval --against`; a broken weights file is refused in located
/// words and the built-in model classifies.
@Suite("A user's own intent model")
struct IntentModelEndToEndTests {
    /// A made-up convention no shipped model knows: "zzq" messages are decisions to plan.
    static let corpus: String = (0..<12).flatMap { n in
        [#"{"text": "zzq blorp number \#(n)", "intent": "decision", "urgency": "planning"}"#,
         #"{"text": "why do cats purr, question \#(n)", "intent": "curiosity", "urgency": "exploratory"}"#]
    }.joined(separator: "\n") + "\n"

    /// A folder with the corpus and the weights trained on it alone.
    static func trained() async throws -> (folder: URL, corpus: URL, weights: URL) {
        let folder = Scratch.root.appendingPathComponent("reception-own-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let corpus = folder.appendingPathComponent("mine.jsonl"), weights = folder.appendingPathComponent("my-weights.json")
        try Self.corpus.write(to: corpus, atomically: true, encoding: .utf8)
        let (output, status) = try await PipedREPL.run(["train", corpus.path, "--out", weights.path, "--folds", "2"], input: "")
        #expect(status == 0 && output.contains("trained on 24 messages"), "\(output)")
        return (folder, corpus, weights)
    }

    @Test func theREPLClassifiesWithTheChosenModelAndSaysWhich() async throws {
        let (folder, _, weights) = try await Self.trained()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = "zzq blorp number 3\n/intent\n/quit\n"
        let (output, errors, status) = try await PipedREPL.run(["--intent-weights", weights.path, "--local-step-ms", "1"], input: script, separateErrors: true)
        #expect(status == 0, "\(output)\(errors)")
        #expect(output.contains("decision / planning"), "the trained convention classified the message: \(output)")
        #expect(output.contains("model: \(weights.path)"), "\(output)")
        // The same model from the intent settings file, with no option.
        let home = folder.appendingPathComponent("home")
        let settings = home.appendingPathComponent("config/reception/intent.json")
        try FileManager.default.createDirectory(at: settings.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "{\"weights\": \"\(weights.path)\"}\n".write(to: settings, atomically: true, encoding: .utf8)
        let (configured, _) = try await PipedREPL.run(["--local-step-ms", "1"], input: script, home: home)
        #expect(configured.contains("decision / planning") && configured.contains("model: \(weights.path)"), "\(configured)")
        // `--intent-weights built-in` sets the settings file aside.
        let (builtIn, _) = try await PipedREPL.run(["--intent-weights", "built-in", "--local-step-ms", "1"], input: script, home: home)
        #expect(builtIn.contains("model: built-in") && !builtIn.contains("decision / planning"), "\(builtIn)")
        // Labels set by hand: `/intent` says the breakdown is the model's reading they replace,
        // and which model read it.
        let (manual, _) = try await PipedREPL.run(["--intent-weights", weights.path, "--local-step-ms", "1"],
                                                  input: "/intent set action soon\nwhich beans\n/intent\n", home: home)
        #expect(manual.contains("set by you") && manual.contains("The model's reading, which your labels replace:")
                && manual.contains("model: \(weights.path)"), "\(manual)")
        // One label by hand (`/intent set action`) was shown as the model's: now the line and
        // `/intent` say which label is the person's and which the model's, and the log and
        // `--json` keep the same per head.
        let (oneHead, _) = try await PipedREPL.run(["--intent-weights", weights.path, "--local-step-ms", "1"],
                                                   input: "/intent set action\nwhich beans\n/intent\n", home: home)
        #expect(oneHead.contains("→ action / ") && oneHead.contains(" · intent set by you") && !oneHead.contains("· set by you"), "\(oneHead)")
        #expect(oneHead.contains("The model's reading of the intent, which your label replaces:")
                && oneHead.contains("The model's reading of the urgency, which is sent:") && oneHead.contains("model: \(weights.path)"), "\(oneHead)")
        let (logged, _) = try await PipedREPL.run(["logs", "show", "last"], input: "", home: home)
        #expect(logged.contains("(intent set by hand)"), "\(logged)")
        let (json, _) = try await PipedREPL.run(["--json", "--no-log", "--intent-weights", weights.path, "--local-step-ms", "1"],
                                                input: "/intent set - soon\nwhich beans\n", home: home)
        #expect(json.contains(#""intentByHand":false"#) && json.contains(#""urgencyByHand":true"#) && json.contains(#""urgency":"soon""#), "\(json)")
    }

    /// A weights file cut short (a copy that did not finish) is refused with its place in the
    /// file, and the chat goes on with the built-in model, which `/intent` names.
    @Test func aTruncatedWeightsFileGivesALocatedErrorAndTheBuiltInModel() async throws {
        let (folder, _, weights) = try await Self.trained()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try String(contentsOf: weights, encoding: .utf8)
        let cut = folder.appendingPathComponent("cut.json")
        let half = String(whole.prefix(whole.count / 2))
        try half.write(to: cut, atomically: true, encoding: .utf8)
        let line = half.split(separator: "\n", omittingEmptySubsequences: false).count
        let (output, errors, status) = try await PipedREPL.run(["--intent-weights", cut.path, "--local-step-ms", "1"],
                                                         input: "zzq blorp number 3\n/intent\n", separateErrors: true)
        #expect(status == 0, "\(output)\(errors)")
        #expect(errors.contains("warning: \(cut.path):\(line):") && errors.contains("the file ends before its JSON does (cut short?"), "\(errors)")
        #expect(errors.contains("classifying with the built-in model instead"), "\(errors)")
        #expect(output.contains("model: built-in"), "\(output)")
        // `classify` and `eval` stop with the same located words: what they print would be taken
        // for the named model's answers and figures.
        for command in [["classify", "--json", "--weights", cut.path, "zzq blorp"], ["eval", weights.path, "--weights", cut.path]] {
            let (printed, commandErrors, commandStatus) = try await PipedREPL.run(command, input: "", separateErrors: true)
            #expect(commandStatus == 1 && printed.isEmpty && commandErrors.contains("error: \(cut.path):\(line):"), "\(command[0]): \(printed)\(commandErrors)")
        }
        // With a usable file, `classify --json` says which model answered.
        let (classified, _) = try await PipedREPL.run(["classify", "--json", "--weights", weights.path, "zzq blorp"], input: "")
        #expect(classified.contains("\"model\":\"\(weights.path)\""), "\(classified)")
    }

    /// `eval --weights A --against built-in`: both models on the same messages, side by side,
    /// and McNemar's test of whether the difference is more than chance.
    @Test func evalAgainstTheBuiltInModelReportsThePairedTest() async throws {
        let (folder, corpus, weights) = try await Self.trained()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (output, errors, status) = try await PipedREPL.run(["eval", corpus.path, "--weights", weights.path, "--against", "built-in"], input: "", separateErrors: true)
        #expect(status == 0, "\(output)\(errors)")
        #expect(output.contains("Compared two models on the same 24 messages"), "\(output)")
        #expect(output.contains("  A  \(weights.path)\n  B  built-in\n"), "\(output)")
        #expect(output.contains("McNemar's test"), "\(output)")
        // The zzq messages: the trained model is right on all twelve, the built-in one on none of
        // their intents; exact binomial for 12 discordant, two-sided p = 2 / 4096.
        #expect(output.contains("intent   only A right 12, only B right 0: p = 0.0005 (exact binomial); A is better"), "\(output)")
        let (json, _) = try await PipedREPL.run(["eval", corpus.path, "--weights", weights.path, "--against", "built-in", "--json"], input: "")
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let paired = (object?["paired"] as? [String: Any])?["intent"] as? [String: Any]
        #expect(paired?["onlyA"] as? Int == 12 && paired?["method"] as? String == "exact", "\(json)")
        #expect(!errors.contains("same model"), "\(errors)")
        // A model compared with itself is said to be one.
        let (_, itself, _) = try await PipedREPL.run(["eval", corpus.path, "--weights", weights.path, "--against", weights.path], input: "", separateErrors: true)
        #expect(itself.contains("both columns are the same model"), "\(itself)")
    }

    /// Re-running `eval --report` refreshes the report without --force: the replacement is
    /// said, so a report kept for comparison is not lost unnoticed, and a page that is not a
    /// report is refused.
    @Test func evalReportSaysWhenItReplacesAnEarlierReport() async throws {
        let (folder, corpus, _) = try await Self.trained()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reports = folder.appendingPathComponent("reports")
        let (_, first, firstStatus) = try await PipedREPL.run(["eval", corpus.path, "--report", reports.path], input: "", separateErrors: true)
        #expect(firstStatus == 0 && first.contains("report written to \(reports.path)/index.html\n"), "\(first)")
        let (_, second, _) = try await PipedREPL.run(["eval", corpus.path, "--report", reports.path], input: "", separateErrors: true)
        #expect(second.contains("report written to \(reports.path)/index.html (it replaced the earlier report there)"), "\(second)")
        try "<html>mine</html>".write(to: reports.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        let (_, refused, status) = try await PipedREPL.run(["eval", corpus.path, "--report", reports.path], input: "", separateErrors: true)
        #expect(status == 1 && refused.contains("exists and is not a report of reception eval"), "\(refused)")
        #expect(try String(contentsOf: reports.appendingPathComponent("index.html"), encoding: .utf8) == "<html>mine</html>")
    }

}

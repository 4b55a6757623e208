import Foundation
import ReceptionCore
import ReceptionLoopSymphony

/// The deterministic "engine" of the reference server: routing, scripted behaviours chosen by
/// words in the query, and the intervention rules.
///
/// Scripted behaviours (case-insensitive words in the query):
/// - `research`, `compare`, `best`, `find`, `investigate`, `slow` → research instrument: 3 `iteration` events
///   (`slow`: 8 iterations of 10 steps each, so a cancel lands mid-stream);
/// - `image`, `photo` (or an image attachment) → vision: one `vision_analysis` iteration;
/// - `summarize`, `combine`, `synthesize` → synthesis (no iteration events); otherwise note (none either);
/// - `fail` → the task fails after `started` (`error` event; `GET /task/{id}` → 500 "Task failed: …");
/// - `crash` → `POST /task` answers a text/plain 500, like an unhandled exception;
/// - `saturated`, `bounded`, `inconclusive` → that outcome (inconclusive carries a discrepancy);
/// - `silent` → no events are put on the stream (as after a server restart); only polling sees the result;
/// - `brokenstream` → the stream sends one malformed frame and closes;
/// - `cutstream` → the stream ends cleanly after two events, mid-task;
/// - `oversized` → the stream sends one event of 8 MB as short `data:` lines (`OversizedEvent`);
/// - `vanish` → once complete, `GET /task/{id}` answers 503, as a server going down would;
/// - `stuckresult` → the stream says `complete`, but `GET /task/{id}` keeps answering `running`;
/// - `escapes` → every text the client shows carries its words between escape sequences
///   (`HostileText`): the plan's description and instrument, the summary, findings and
///   follow-ups, the error (with `fail`), and the query and progress in the task lists;
/// - `novelfields` → what a newer server might send: outcome `transcendent`, process type
///   `hyperconscious`, and fields this contract does not list, in the result and the events.
enum ReferenceEngine {
    static let descriptions = [
        "note": "Quick, single-pass reasoning for simple questions",
        "research": "Multi-iteration research with web search and analysis",
        "synthesis": "Combines multiple inputs into coherent output",
        "vision": "Analyzes images and extracts information",
    ]
    static let estimatedIterations = ["note": 1, "research": 5, "synthesis": 2, "vision": 3]
    static let instruments = ["note", "research", "synthesis", "vision"]

    static func has(_ query: String, _ words: [String]) -> Bool {
        let lowered = query.lowercased()
        return words.contains { lowered.contains($0) }
    }

    static func route(_ request: TaskRequest) -> String {
        let q = request.query
        let imageAttachment = (request.context?.attachments ?? []).contains { a in
            let l = a.lowercased()
            return l.hasPrefix("data:image/") || [".jpg", ".jpeg", ".png", ".gif", ".webp"].contains { l.hasSuffix($0) } || l.hasPrefix("https://")
        }
        if imageAttachment || has(q, ["image", "photo"]) { return "vision" }
        if has(q, ["research", "compare", "best", "find", "investigate", "slow"]) { return "research" }
        if has(q, ["summarize", "combine", "synthesize"]) { return "synthesis" }
        return "note"
    }

    static func processType(_ instrument: String) -> String { instrument == "note" ? "autonomic" : "semi_autonomic" }

    /// The text as it is, or between escape sequences for an `escapes` query.
    static func hostile(_ query: String) -> @Sendable (String) -> String {
        let hostile = has(query, ["escapes"])
        return { text in hostile ? HostileText.around(text) : text }
    }

    static func plan(for request: TaskRequest, instrument: String) -> PyJSON {
        let wrap = hostile(request.query)
        return .object([
            ("task_id", .string(request.id)), ("query", .string(request.query)), ("instrument", .string(wrap(instrument))),
            ("process_type", .string(processType(instrument))),
            ("estimated_iterations", .int(estimatedIterations[instrument] ?? 1)),
            ("description", .string(wrap(descriptions[instrument] ?? "Process query using \(instrument) instrument"))),
            ("requires_approval", .bool(true)),
        ])
    }

    static func outcome(for query: String) -> Outcome {
        if has(query, ["novelfields"]) { return .unknown("transcendent") }
        if has(query, ["inconclusive"]) { return .inconclusive }
        if has(query, ["bounded"]) { return .bounded }
        if has(query, ["saturated"]) { return .saturated }
        return .complete
    }

    /// Interventions before trust gating, at most three (the real engine's `max_interventions`).
    static func interventions(query: String, instrument: String, trustLevel: Int, recentQueries: [String]) -> [(String, String, Double, String)] {
        var result: [(String, String, Double, String)] = []
        let normalised = query.lowercased().trimmingCharacters(in: .whitespacesAndNewlines)
        if recentQueries.contains(where: { $0.lowercased().trimmingCharacters(in: .whitespacesAndNewlines) == normalised }) {
            result.append(("proactive", "You have asked about this before. Consider a heartbeat (scheduled task) to track it for you.", 0.7, "recent_queries:repeat"))
        }
        if has(query, ["everything", "all about", "tell me about", "overview"]) {
            result.append(("pushback", "This request is very broad. Consider focusing on a specific aspect for better results.", 0.8, "scope:broad"))
        }
        if query.filter({ $0 == "?" }).count >= 2 || has(query, [" and also "]) {
            result.append(("scoping", "This request has several parts. Consider sending them as separate questions.", 0.7, "scope:multi_part"))
        }
        if instrument == "note" {
            result.append(("education", "Tip: The research instrument can perform deeper multi-source investigation", 0.5, "feature:research"))
        }
        let gated = result.filter { item in
            switch trustLevel {
            case ...0: true
            case 1: item.0 != "education"
            default: item.0 == "proactive" || item.0 == "pushback"
            }
        }
        return Array(gated.prefix(3))
    }

    static func interventionJSON(_ items: [(String, String, Double, String)]) -> PyJSON {
        .array(items.map { .object([("type", .string($0.0)), ("message", .string($0.1)), ("confidence", .double($0.2)), ("source", .string($0.3))]) })
    }

    /// Runs a task: emits events, records iterations, stores the response. Cancellation ends it
    /// as the real server does: row failed with "Cancelled by user", stream gets "Task cancelled".
    static func run(_ taskID: String, state: ReferenceState, options: LoopSymphonyReferenceOptions) async {
        guard let record = await state.task(taskID) else { return }
        let query = record.request.query
        let wrap = hostile(query)
        let silent = has(query, ["silent"])
        let emit: @Sendable ([(String, PyJSON)]) async -> Void = { pairs in
            if !silent { await state.emit(taskID, pairs) }
        }
        let slow = has(query, ["slow"])
        let instrument = record.instrument
        let iterations: Int
        switch instrument {
        case "research": iterations = slow ? 8 : 3
        case "vision": iterations = 1
        default: iterations = 0
        }
        await state.updateTask(taskID) {
            $0.status = .running
            $0.managerState = .running
            $0.startedAt = Date()
            $0.maxIterations = max(iterations, 1)
        }
        await emit([("event", .string("started"))])
        let clock = ContinuousClock()
        let start = clock.now
        do {
            if has(query, ["fail"]) {
                try await Task.sleep(for: options.stepDelay)
                throw SimulatedFailure()
            }
            var total = 0
            for n in 1...max(iterations, 1) {
                let stepStart = clock.now
                for _ in 0..<(slow ? 10 : 1) { try await Task.sleep(for: options.stepDelay) }
                guard iterations > 0 else { break }
                let new = n == 1 ? 4 : 2
                total += new
                let confidence = min(0.6 + 0.1 * Double(n), 0.95)
                let phase = instrument == "vision" ? "vision_analysis" : "iteration"
                let output: PyJSON = instrument == "vision"
                    ? .object([("description", .string("Reference description of the image")), ("confidence", .double(0.9))])
                    : .object([("new_findings", .int(new)), ("total_findings", .int(total)), ("confidence", .double(confidence)),
                               ("should_terminate", .bool(n == iterations))])
                let duration = milliseconds(stepStart.duration(to: clock.now))
                await state.updateTask(taskID) {
                    $0.currentIteration = n
                    $0.iterations.append(.object([
                        ("task_id", .string(taskID)), ("iteration_num", .int(n)), ("phase", .string(phase)),
                        ("input", .object([("query", .string(query))])), ("output", output), ("duration_ms", .int(duration)),
                        ("id", .string(UUID().uuidString.lowercased())), ("created_at", .string(PyTime.iso(Date()))),
                    ]))
                }
                await emit([("event", .string("iteration")), ("iteration_num", .int(n)), ("phase", .string(phase)),
                            ("data", output), ("duration_ms", .int(duration))] + (has(query, ["novelfields"]) ? [("mood", .string("curious"))] : []))
            }
            try Task.checkCancellation()
            let outcome = outcome(for: query)
            let recent = await state.recentQueries
            let interventions = interventions(query: query, instrument: instrument, trustLevel: record.trustLevel,
                                              recentQueries: Array(recent.dropLast()))
            let confidence: Double = switch outcome {
            case .complete: 0.92
            case .saturated: 0.8
            case .bounded: 0.55
            default: 0.4
            }
            let findings = (1...max(iterations, 1)).map { n in
                TaskFinding(content: wrap("[reference] \(instrument) finding \(n) for: \(query)"),
                        source: instrument == "research" ? "https://reference.invalid/source/\(n)" : "reference",
                        confidence: confidence, timestamp: PyTime.pydantic(Date()))
            }
            var followups = ["What would you like to explore next about this?"]
            if outcome == .bounded { followups.insert("Continue with a deeper search?", at: 0) }
            followups += interventions.map { "[\($0.0)] \($0.1)" }
            followups = followups.map(wrap)
            let plainSummary: String = switch outcome {
            case .complete: "Reference \(instrument) answer to: \(query)"
            case .saturated: "Best available reference answer to: \(query)"
            case .bounded: "Partial reference answer (limits reached) to: \(query)"
            default: "Conflicting reference signals for: \(query)"
            }
            let summary = wrap(plainSummary)
            let response = TaskResponse(
                requestID: taskID, outcome: outcome, findings: findings, summary: summary, confidence: confidence,
                metadata: ExecutionMetadata(instrumentUsed: record.kind == "task" ? instrument : "\(record.kind):\(instrument)",
                                            iterations: max(iterations, 1), durationMS: milliseconds(start.duration(to: clock.now)),
                                            sourcesConsulted: Array(Set(findings.compactMap(\.source))).sorted(),
                                            processType: ProcessType(wire: has(query, ["novelfields"]) ? "hyperconscious" : processType(instrument)),
                                            roomID: "server", failoverEvents: []),
                discrepancy: outcome == .inconclusive ? "Reference source A and reference source B disagree." : nil,
                suggestedFollowups: followups)
            await state.updateTask(taskID) {
                $0.status = .complete
                $0.response = response
                $0.managerState = .completed
            }
            if let appID = record.appID {
                await state.recordOutcome(appID: appID, userID: record.userID, success: outcome == .complete || outcome == .saturated)
            }
            await emit([("event", .string("complete")), ("outcome", .string(outcome.rawValue)), ("summary", .string(summary)),
                        ("confidence", .double(confidence))] + (outcome.isKnown ? [] : [("engine_notes", .string("new in v2"))]))
        } catch is CancellationError {
            await state.updateTask(taskID) {
                $0.status = .failed
                $0.error = "Cancelled by user"
                $0.managerState = .cancelled
            }
            await emit([("event", .string("error")), ("error", .string("Task cancelled"))])
        } catch {
            let message = wrap((error as? SimulatedFailure)?.message ?? String(describing: error))
            await state.updateTask(taskID) {
                $0.status = .failed
                $0.error = message
                $0.managerState = .failed
            }
            if let appID = record.appID { await state.recordOutcome(appID: appID, userID: record.userID, success: false) }
            await emit([("event", .string("error")), ("error", .string(message))])
        }
        await state.removeRunner(taskID)
    }

    struct SimulatedFailure: Error { let message = "Simulated failure: the query asked the reference server to fail" }

    static func milliseconds(_ d: Duration) -> Int {
        Int(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000)
    }

    // MARK: Arrangements and loops

    static func arrangementProposal(for query: String) -> PyJSON {
        let instrument = route(TaskRequest(query: query))
        if has(query, [" and "]) {
            return .object([
                ("type", .string("sequential")),
                ("rationale", .string("The request has two parts: gather first, then combine.")),
                ("termination_criteria", .string("Both parts answered with confidence above 0.8")),
                ("steps", .array([.object([("instrument", .string("research")), ("config", .null)]),
                                  .object([("instrument", .string("synthesis")), ("config", .null)])])),
                ("branches", .null), ("merge_instrument", .string("synthesis")), ("timeout_seconds", .null), ("instrument", .null),
            ])
        }
        return .object([
            ("type", .string("single")), ("rationale", .string("One instrument fits: \(instrument).")),
            ("termination_criteria", .string("Confidence above 0.8 or no new findings")),
            ("steps", .null), ("branches", .null), ("merge_instrument", .string("synthesis")), ("timeout_seconds", .null),
            ("instrument", .string(instrument)),
        ])
    }

    static func loopProposal(for query: String) -> PyJSON {
        let phases: [(String, String, String, String?)] = [
            ("hypothesize", "State what the answer might be", "prompt", nil),
            ("gather", "Collect evidence for and against", "instrument", "research"),
            ("analyze", "Weigh the evidence", "prompt", nil),
            ("synthesize", "Write the answer", "instrument", "synthesis"),
        ]
        return .object([
            ("name", .string("reference_loop")),
            ("description", .string("A four-phase scientific-method loop for: \(query)")),
            ("phases", .array(phases.map { p in
                .object([("name", .string(p.0)), ("description", .string(p.1)), ("action", .string(p.2)),
                         ("instrument", .str(p.3)), ("prompt_template", p.2 == "prompt" ? .string("{query} — \(p.0): {previous_findings}") : .null),
                         ("max_iterations", .int(1))])
            })),
            ("termination_criteria", .string("The analysis phase reports confidence above 0.8")),
            ("max_total_iterations", .int(10)), ("required_capabilities", .strings(["reasoning"])),
            ("scientific_method_phases", .strings(["hypothesize", "gather", "analyze", "synthesize"])),
        ])
    }

    static func validateLoop(_ proposal: JSONValue) -> (valid: Bool, errors: [String], warnings: [String], coverage: [(String, Bool)]) {
        var errors: [String] = []
        var warnings: [String] = []
        let phases: [JSONValue] = { if case .array(let a)? = proposal["phases"] { return a } else { return [] } }()
        for phase in phases where phase["action"]?.stringValue == "instrument" {
            let instrument = phase["instrument"]?.stringValue ?? ""
            if !instruments.contains(instrument) { errors.append("Phase '\(phase["name"]?.stringValue ?? "?")': unknown instrument '\(instrument)'") }
        }
        let names = Set(phases.compactMap { $0["name"]?.stringValue })
        let coverage = ["hypothesize", "gather", "analyze", "synthesize"].map { ($0, names.contains($0)) }
        for (phase, covered) in coverage where !covered { warnings.append("Scientific method phase '\(phase)' is not covered") }
        if (proposal["termination_criteria"]?.stringValue ?? "").isEmpty { errors.append("Termination criteria are required") }
        return (errors.isEmpty, errors, warnings, coverage)
    }
}

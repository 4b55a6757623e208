import Foundation
import Hummingbird
import ReceptionCore

/// Generation, retrieval, interactions and time travel.
extension TimepointReferenceServer {
    func timepoints(_ call: Call, _ route: [String]) async -> Response {
        let signedIn: TimepointReferenceState.User
        switch await user(call) {
        case .failure(let refusal): return refusal.response
        case .success(let user): signedIn = user
        }
        let rest = Array(route.dropFirst())
        switch (call.method, rest) {
        case ("POST", ["generate", "sync"]), ("POST", ["generate"]), ("POST", ["generate", "stream"]):
            let query = string(call, "query") ?? ""
            if call.body?["query"] == nil { return Self.invalid([(["query"], "missing", "Field required")]) }
            if query.count < 3 { return Self.invalid([(["query"], "string_too_short", "String should have at least 3 characters")]) }
            if query.count > 500 { return Self.invalid([(["query"], "string_too_long", "String should have at most 500 characters")]) }
            let preset = string(call, "preset") ?? "balanced"
            let cost = Self.costs["generate_\(preset)"] ?? 5
            guard await state.canAfford(signedIn.id, 5) else {
                return Self.error(402, "Insufficient credits. This operation costs 5 credits.")
            }
            guard await state.canAfford(signedIn.id, cost) else {
                return Self.error(500, "Insufficient credits: have \(signedIn.balance), need \(cost)")
            }
            let visibility = string(call, "visibility")
            let image = call.body?["generate_image"]?.boolValue ?? false
            let mode = rest.count == 2 ? rest[1] : "background"
            var scene = await state.makeScene(query: query, ownerID: signedIn.id, visibility: visibility, image: image,
                                              status: mode == "background" ? "processing" : "completed")
            await state.spend(signedIn.id, cost, type: "generation", "Generation: \(query.prefix(60))")
            let slow = query.lowercased().contains("slow")
            switch mode {
            case "sync":
                if slow { try? await Task.sleep(for: options.slowStepDelay * TimepointReferenceState.pipelineSteps.count) }
                return Self.json(200, await state.json(scene, full: true, includeImage: false, viewer: signedIn.id))
            case "background":
                scene.pendingPolls = options.backgroundPolls
                await state.updateScene(scene)
                return Self.json(200, .object(["id": .string(scene.id), "status": .string("processing"),
                                               "message": .string("Generation started for '\(query)'"), "request_context": .null]))
            default:
                let lowered = query.lowercased()
                if lowered.contains("garbagehtml") { return Self.htmlPage() }
                let garbage: StreamGarbage? = lowered.contains("garbagejson") ? .notJSON : lowered.contains("garbageutf8") ? .notUTF8 : nil
                return Self.stream(streamFrames(scene, preset: preset, image: image, unusual: lowered.contains("unusual")),
                                   pause: slow ? options.slowStepDelay : options.stepDelay,
                                   cutAfter: lowered.contains("dropped") ? 3 : nil, stallAfter: lowered.contains("stalled") ? 3 : nil,
                                   oversizedAfter: lowered.contains("oversized") ? 3 : nil,
                                   garbageAfter: garbage.map { ($0, 2) })
            }
        case ("GET", []):
            let page = max(Int(call.query["page"] ?? "1") ?? 1, 1)
            let size = min(max(Int(call.query["page_size"] ?? "20") ?? 20, 1), 100)
            let visibility = call.query["visibility"].flatMap { ["public", "private"].contains($0) ? $0 : nil }
            let visible = await state.visibleScenes(to: signedIn.id, visibility: visibility)
            var items: [JSONValue] = []
            for scene in visible.dropFirst((page - 1) * size).prefix(size) {
                items.append(await state.json(scene, full: false, includeImage: false, viewer: signedIn.id))
            }
            return Self.json(200, .object(["items": .array(items), "total": .number(Double(visible.count)),
                                           "page": .number(Double(page)), "page_size": .number(Double(size))]))
        case ("GET", let path) where path.count == 1:
            guard let scene = await state.poll(path[0]) else { return Self.error(404, "Timepoint not found") }
            if scene.visibility == "private" && scene.ownerID != signedIn.id { return Self.error(403, "This timepoint is private") }
            return Self.json(200, await state.json(scene, full: call.query["full"] == "true", includeImage: call.query["include_image"] == "true", viewer: signedIn.id))
        case ("PATCH", let path) where path.count == 2 && path[1] == "visibility":
            guard var scene = await state.scene(path[0]) else { return Self.error(404, "Timepoint not found") }
            guard let value = string(call, "visibility"), ["public", "private"].contains(value) else {
                return Self.error(400, "Invalid visibility value. Must be 'public' or 'private'.")
            }
            guard scene.ownerID == signedIn.id else { return Self.error(403, "Only the owner can change visibility") }
            scene.visibility = value
            await state.updateScene(scene)
            return Self.json(200, await state.json(scene, full: false, includeImage: false, viewer: signedIn.id))
        default:
            return Self.notFoundRoute()
        }
    }

    func streamFrames(_ scene: TimepointReferenceState.Scene, preset: String, image: Bool, unusual: Bool = false) -> [JSONValue] {
        func frame(_ event: String, _ step: String?, _ data: JSONValue, _ progress: Int, _ error: String? = nil) -> JSONValue {
            .object(["event": .string(event), "step": step.map(JSONValue.string) ?? .null, "data": data,
                     "progress": .number(Double(progress)), "error": error.map(JSONValue.string) ?? .null])
        }
        var frames = [frame("start", "initialization", .object(["query": .string(scene.query), "generate_image": .bool(image), "preset": .string(preset)]), 0)]
        let steps = TimepointReferenceState.pipelineSteps
        for (index, step) in steps.enumerated() {
            let progress = 10 + index * 80 / steps.count
            if scene.status == "failed" {
                frames.append(frame("step_error", step, .null, progress, scene.error))
                break
            }
            frames.append(frame("step_complete", step, .object(["latency_ms": .number(Double(100 + index)), "model_used": .string("reference")]), progress))
            if unusual && index == 1 {
                // An event and fields this client has never heard of.
                frames.append(.object(["event": .string("checkpoint"), "step": .string("graph"), "data": .object(["novel": .bool(true)]),
                                       "progress": .number(Double(progress)), "error": .null, "trace_id": .string("t-1")]))
            }
        }
        frames.append(frame("done", "complete", .object([
            "timepoint_id": .string(scene.id), "slug": .string(scene.slug), "status": .string(scene.status),
            "year": scene.status == "completed" ? .number(Double(scene.year)) : .null,
            "location": scene.status == "completed" ? .string(scene.location) : .null,
            "total_latency_ms": .number(615), "has_image": .bool(scene.hasImage), "saved": .bool(true),
        ]), 100))
        return frames
    }

    /// A scene the signed-in user may interact with, or the refusal.
    func interactable(_ id: String, _ user: TimepointReferenceState.User) async -> Result<TimepointReferenceState.Scene, Refusal> {
        guard let scene = await state.scene(id) else { return .failure(Refusal(response: Self.error(404, "Timepoint not found"))) }
        if scene.visibility == "private" && scene.ownerID != user.id { return .failure(Refusal(response: Self.error(403, "This timepoint is private"))) }
        return .success(scene)
    }

    func interactions(_ call: Call, _ route: [String]) async -> Response {
        guard call.method == "POST", route.count == 3 else { return Self.notFoundRoute() }
        let signedIn: TimepointReferenceState.User
        switch await user(call) {
        case .failure(let refusal): return refusal.response
        case .success(let user): signedIn = user
        }
        if route[2] == "chat" {
            var problems: [(field: [String], type: String, message: String)] = []
            if string(call, "character") == nil { problems.append((["character"], "missing", "Field required")) }
            if call.body?["message"] == nil { problems.append((["message"], "missing", "Field required")) }
            else if (string(call, "message") ?? "").isEmpty { problems.append((["message"], "string_too_short", "String should have at least 1 character")) }
            if !problems.isEmpty { return Self.invalid(problems) }
        }
        guard await state.canAfford(signedIn.id, 1) else { return Self.error(402, "Insufficient credits. This operation costs 1 credits.") }
        let scene: TimepointReferenceState.Scene
        switch await interactable(route[1], signedIn) {
        case .failure(let refusal): return refusal.response
        case .success(let found): scene = found
        }
        guard scene.status == "completed" else { return Self.error(404, "Timepoint has no character data. Generation may be incomplete.") }
        let names = scene.cast.map(\.name)
        switch route[2] {
        case "chat":
            let asked = string(call, "character")!
            guard let name = names.first(where: { $0.lowercased() == asked.lowercased() }) else {
                return Self.error(404, "Character '\(asked)' not found. Available: [\(names.map { "'\($0)'" }.joined(separator: ", "))]")
            }
            let message = string(call, "message")!
            await state.spend(signedIn.id, 1, type: "chat", "Chat with \(name)")
            var session = string(call, "session_id")
            if session == nil { session = await state.nextChatSession() }
            let place = "\(scene.location), \(scene.year < 0 ? "\(-scene.year) BCE" : String(scene.year))"
            return Self.json(200, .object(["character_name": .string(name),
                                           "response": .string("\(name) considers \"\(message)\" and says: here in \(place), I am thinking about what comes next."),
                                           "session_id": .string(session ?? ""), "emotional_tone": .string("thoughtful"), "latency_ms": .number(7)]))
        case "dialog":
            let lines = min(max(call.body?["num_lines"]?.intValue ?? 5, 1), 10)
            let dialog = (0..<lines).map { index -> JSONValue in
                let speaker = names[index % 2]
                return .object(["speaker": .string(speaker), "text": .string("[reference] line \(index + 1) by \(speaker) in \(scene.location).")])
            }
            return Self.json(200, .object(["dialog": .array(dialog), "context": .string(string(call, "prompt") ?? "more talk"),
                                           "characters_involved": .array(names.prefix(2).map(JSONValue.string)), "latency_ms": .number(9)]))
        case "survey":
            let question = call.body?["questions"].flatMap { value -> String? in
                if case .array(let items) = value { return items.first?.stringValue }
                return nil
            } ?? "?"
            let responses = names.map { name -> JSONValue in
                .object(["character_name": .string(name), "question": .string(question), "response": .string("\(name) answers: \(question)")])
            }
            return Self.json(200, .object(["timepoint_id": .string(scene.id), "questions": .array([.string(question)]), "responses": .array(responses),
                                           "summary": .null, "mode": .string("parallel"), "total_characters": .number(Double(names.count)), "latency_ms": .number(11)]))
        default:
            return Self.notFoundRoute()
        }
    }

    func temporal(_ call: Call, _ route: [String]) async -> Response {
        guard route.count == 3 else { return Self.notFoundRoute() }
        if call.method == "GET", route[2] == "sequence" {
            guard let scene = await state.scene(route[1]) else { return Self.error(404, "Timepoint not found") }
            let limit = min(max(Int(call.query["limit"] ?? "10") ?? 10, 1), 50)
            let (prior, next) = await state.sequence(around: scene.id, limit: limit)
            func entry(_ s: TimepointReferenceState.Scene) -> JSONValue { .object(["id": .string(s.id), "year": .number(Double(s.year)), "slug": .string(s.slug)]) }
            return Self.json(200, .object(["center": entry(scene), "prior": .array(prior.map(entry)), "next": .array(next.map(entry))]))
        }
        guard call.method == "POST", ["next", "prior"].contains(route[2]) else { return Self.notFoundRoute() }
        let signedIn: TimepointReferenceState.User
        switch await user(call) {
        case .failure(let refusal): return refusal.response
        case .success(let user): signedIn = user
        }
        let units = call.body?["units"]?.intValue ?? 1
        let unit = string(call, "unit") ?? "day"
        var problems: [(field: [String], type: String, message: String)] = []
        if !(1...365).contains(units) { problems.append((["units"], "less_than_equal", "Input should be between 1 and 365")) }
        if !["second", "minute", "hour", "day", "week", "month", "year"].contains(unit) {
            problems.append((["unit"], "enum", "Input should be 'second', 'minute', 'hour', 'day', 'week', 'month' or 'year'"))
        }
        if !problems.isEmpty { return Self.invalid(problems) }
        guard await state.canAfford(signedIn.id, 2) else { return Self.error(402, "Insufficient credits. This operation costs 2 credits.") }
        let source: TimepointReferenceState.Scene
        switch await interactable(route[1], signedIn) {
        case .failure(let refusal): return refusal.response
        case .success(let found): source = found
        }
        guard source.status == "completed" else { return Self.error(400, "Source timepoint must be completed before navigation") }
        let target = await state.jump(from: source, direction: route[2], units: units, unit: unit)
        await state.spend(signedIn.id, 2, type: "temporal", "Temporal \(route[2])")
        return Self.json(200, .object([
            "source_id": .string(source.id), "target_id": .string(target.id), "source_year": .number(Double(source.year)),
            "target_year": .number(Double(target.year)), "direction": .string(route[2]), "units": .number(Double(units)), "unit": .string(unit),
            "message": .string("Navigated \(units) \(unit)(s) \(route[2] == "next" ? "forward" : "backward")"),
        ]))
    }
}

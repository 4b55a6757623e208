import Foundation
import HTTPTypes
import Hummingbird
import ReceptionCore
import ReceptionLoopSymphony

/// The reference Loop Symphony server's routes: knowledge.
extension LoopSymphonyReferenceServer {
    static func entryJSON(_ e: ReferenceState.KnowledgeRecord, fileView: Bool) -> PyJSON {
        .object([
            ("id", .string(e.id)), ("category", .string(e.category)), ("title", .string(e.title)), ("content", .string(e.content)),
            ("source", .string(e.source)), ("confidence", .double(e.confidence)), ("version", .int(fileView ? 0 : e.version)),
            ("user_id", .str(e.userID)), ("tags", .strings(e.tags)), ("is_active", .bool(e.isActive)),
            ("created_at", .string(PyTime.pydantic(e.createdAt))), ("updated_at", .string(PyTime.pydantic(e.updatedAt))),
        ])
    }

    static let categories = ["capabilities", "boundaries", "patterns", "changelog", "user"]

    func knowledgeFile(_ c: Call) async throws -> Response {
        let category = c.params["category"]!
        guard Self.categories.contains(category), category != "user" else {
            throw Failure.validation([.object([("type", .string("enum")), ("loc", .strings(["path", "category"])),
                                               ("msg", .string("Input should be 'capabilities', 'boundaries', 'patterns' or 'changelog'")),
                                               ("input", .string(category)),
                                               ("ctx", .object([("expected", .string("'capabilities', 'boundaries', 'patterns' or 'changelog'"))]))])])
        }
        let entries = await state.knowledgeEntries(category: category)
        let title = category.prefix(1).uppercased() + category.dropFirst()
        var markdown = "# \(title)\n"
        for entry in entries { markdown += "\n## \(entry.title)\n\n\(entry.content)\n" }
        return S.json(.object([
            ("category", .string(category)), ("title", .string(title)), ("markdown", .string(markdown)),
            ("entries", .array(entries.map { Self.entryJSON($0, fileView: true) })),
            ("last_updated", .str(entries.map(\.updatedAt).max().map(PyTime.pydantic))),
        ]))
    }

    func userKnowledge(_ c: Call) async throws -> Response {
        let userID = c.params["user_id"]!
        let entries = await state.knowledgeEntries(userID: userID)
        let trusts = await state.trustRecordsFor(userID: userID)
        let total = trusts.reduce(0) { $0 + $1.total }
        let successful = trusts.reduce(0) { $0 + $1.successful }
        var markdown = "# Knowledge for user \(userID)\n"
        for entry in entries { markdown += "\n## \(entry.title)\n\n\(entry.content)\n" }
        return S.json(.object([
            ("user_id", .string(userID)), ("trust_level", .int(trusts.map(\.level).max() ?? 0)), ("total_tasks", .int(total)),
            ("success_rate", .double(total == 0 ? 0.0 : Double(successful) / Double(total))),
            ("preferred_patterns", .strings(entries.filter { $0.category == "patterns" }.map(\.title))),
            ("entries", .array(entries.map { Self.entryJSON($0, fileView: false) })), ("markdown", .string(markdown)),
        ]))
    }

    func createEntry(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("category", "str"), ("title", "str"), ("content", "str")],
                     optional: [("confidence", "float"), ("user_id", "str"), ("tags", "list")])
        let category = body["category"]!.stringValue!
        guard Self.categories.contains(category) else {
            throw Failure.validation([.object([("type", .string("enum")), ("loc", .strings(["body", "category"])),
                                               ("msg", .string("Input should be 'capabilities', 'boundaries', 'patterns', 'changelog' or 'user'")),
                                               ("input", .string(category))])])
        }
        let tags: [String] = { if case .array(let a)? = body["tags"] { return a.compactMap(\.stringValue) } else { return [] } }()
        let entry = await state.addKnowledge(category: category, title: body["title"]!.stringValue!, content: body["content"]!.stringValue!,
                                             source: "manual", confidence: body["confidence"]?.doubleValue ?? 1.0,
                                             userID: body["user_id"]?.stringValue, tags: tags)
        return S.json(Self.entryJSON(entry, fileView: false))
    }

    func listEntries(_ c: Call) async throws -> Response {
        let entries = await state.knowledgeEntries(category: c.query["category"], source: c.query["source"])
        return S.json(.array(entries.map { Self.entryJSON($0, fileView: false) }))
    }

    /// Regenerates the tracker-derived entry: the previous one is removed (so room deltas carry
    /// `removed_ids`) and a fresh one describes the task outcomes seen so far.
    func refreshKnowledge(_ c: Call) async throws -> Response {
        let removed = await state.removeKnowledge { $0.source == "trust_tracker" }
        let (active, total) = await state.taskStats()
        _ = await state.addKnowledge(category: "patterns", title: "Task outcomes",
                                     content: "\(total) task(s) run by the reference server, \(active) active.", source: "trust_tracker",
                                     confidence: 0.8, userID: nil, tags: ["learned"])
        return S.json(.object([("entries_created", .int(1)), ("entries_updated", .int(0)), ("entries_removed", .int(removed)),
                               ("sources_refreshed", .strings(["error_tracker", "arrangement_tracker", "trust_tracker"]))]))
    }

    func learnings(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("room_id", "str"), ("learnings", "list")])
        guard case .array(let items)? = body["learnings"] else { throw Failure.internalError }
        for (index, item) in items.enumerated() {
            try validate(item, required: [("category", "str"), ("title", "str"), ("content", "str"), ("room_id", "str")],
                         optional: [("confidence", "float"), ("tags", "list"), ("observed_at", "str")], loc: ["body", "learnings", "\(index)"])
        }
        let room = body["room_id"]!.stringValue!
        await state.addLearnings(roomID: room, items.map(PyJSON.init))
        return S.json(.object([("accepted", .int(items.count)), ("room_id", .string(room))]))
    }

    /// Turns pending room learnings into `aggregated` entries (one per distinct title).
    func aggregate(_ c: Call) async throws -> Response {
        let pending = await state.takeLearnings()
        var seen: Set<String> = []
        var created = 0
        for (_, learning) in pending {
            guard case .string(let title)? = learning["title"], seen.insert(title).inserted else { continue }
            let category: String = { if case .string(let c)? = learning["category"] { return c } else { return "patterns" } }()
            let content: String = { if case .string(let c)? = learning["content"] { return c } else { return "" } }()
            _ = await state.addKnowledge(category: category, title: title, content: content, source: "aggregated",
                                         confidence: 0.6, userID: nil, tags: ["room_learning"])
            created += 1
        }
        return S.json(.object([("entries_created", .int(created)), ("entries_updated", .int(0)), ("learnings_processed", .int(pending.count))]))
    }

    func syncStatus(_ c: Call) async throws -> Response {
        let rooms = await state.syncStatus()
        return S.json(.object([
            ("server_version", .int(await state.knowledgeVersion)),
            ("rooms", .array(rooms.map { .object([("room_id", .string($0.0)), ("last_synced_version", .int($0.1)),
                                                  ("last_sync_at", .string(PyTime.iso($0.2)))]) })),
        ]))
    }
}

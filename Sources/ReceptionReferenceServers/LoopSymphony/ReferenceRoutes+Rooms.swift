import Foundation
import HTTPTypes
import Hummingbird
import ReceptionCore
import ReceptionLoopSymphony

/// The reference Loop Symphony server's routes: rooms.
extension LoopSymphonyReferenceServer {
    func registerRoom(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("room_id", "str"), ("room_name", "str"), ("url", "str"), ("capabilities", "list"), ("instruments", "list")],
                     optional: [("room_type", "str")])
        func strings(_ key: String) -> [String] { if case .array(let a)? = body[key] { return a.compactMap(\.stringValue) } else { return [] } }
        let room = ReferenceState.Room(id: body["room_id"]!.stringValue!, name: body["room_name"]!.stringValue!,
                                       type: body["room_type"]?.stringValue ?? "local", url: body["url"]!.stringValue!,
                                       capabilities: strings("capabilities"), instruments: strings("instruments"),
                                       lastHeartbeat: Date(), registeredAt: Date())
        await state.register(room)
        return S.json(.object([("status", .string("registered")), ("room_id", .string(room.id)), ("room_type", .string(room.type))]))
    }

    func deregisterRoom(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        guard let id = body["room_id"]?.stringValue, !id.isEmpty else { throw Failure.detail(400, "room_id is required") }
        let found = await state.deregister(id)
        return S.json(.object([("status", .string(found ? "deregistered" : "not_found")), ("room_id", .string(id))]))
    }

    func roomHeartbeat(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("room_id", "str")], optional: [("status", "str"), ("capabilities", "list"), ("last_knowledge_version", "int")])
        let id = body["room_id"]!.stringValue!
        let capabilities: [String]? = { if case .array(let a)? = body["capabilities"] { return a.compactMap(\.stringValue) } else { return nil } }()
        guard await state.heartbeat(roomID: id, capabilities: capabilities) else {
            throw Failure.detail(404, "Room not found: \(id). Please re-register.")
        }
        var pairs: [(String, PyJSON)] = [("status", .string("ok")), ("room_id", .string(id))]
        if let version = body["last_knowledge_version"], version != .null {
            if let delta = await state.knowledgeDelta(roomID: id) {
                pairs.append(("knowledge_updates", .object([
                    ("server_version", .int(delta.version)),
                    ("entries", .array(delta.entries.map { e in
                        .object([("id", .string(e.id)), ("category", .string(e.category)), ("title", .string(e.title)),
                                 ("content", .string(e.content)), ("source", .string(e.source)), ("confidence", .double(e.confidence)),
                                 ("tags", .strings(e.tags)), ("version", .int(e.version)), ("updated_at", .string(PyTime.pydantic(e.updatedAt)))])
                    })),
                    ("removed_ids", .strings(delta.removed)),
                ])))
            } else {
                pairs.append(("knowledge_updates", .null))
            }
        }
        return S.json(.object(pairs))
    }

    func roomJSON(_ r: ReferenceState.Room, detailed: Bool) async -> PyJSON {
        var pairs: [(String, PyJSON)] = [
            ("room_id", .string(r.id)), ("room_name", .string(r.name)), ("room_type", .string(r.type)), ("url", .string(r.url)),
            ("status", .string(await state.roomStatus(r))), ("capabilities", .strings(r.capabilities)), ("instruments", .strings(r.instruments)),
            ("last_heartbeat", .string(PyTime.iso(r.lastHeartbeat))),
        ]
        if detailed { pairs.append(("registered_at", .string(PyTime.iso(r.registeredAt)))) }
        return .object(pairs)
    }

    func listRooms(_ c: Call) async throws -> Response {
        let rooms = await state.rooms.values.sorted { $0.registeredAt < $1.registeredAt }
        var items: [PyJSON] = []
        var online = 0
        var byType: [String: Int] = [:]
        for room in rooms {
            items.append(await roomJSON(room, detailed: false))
            if await state.roomStatus(room) == "online" { online += 1 }
            byType[room.type, default: 0] += 1
        }
        return S.json(.object([
            ("rooms", .array(items)),
            ("stats", .object([("total_rooms", .int(rooms.count)), ("online_rooms", .int(online)), ("offline_rooms", .int(rooms.count - online)),
                               ("rooms_by_type", .object(byType.keys.sorted().map { ($0, .int(byType[$0]!)) }))])),
        ]))
    }

    func getRoom(_ c: Call) async throws -> Response {
        let id = c.params["room_id"]!
        guard let room = await state.rooms[id] else { throw Failure.detail(404, "Room not found: \(id)") }
        return S.json(await roomJSON(room, detailed: true))
    }
}

import Foundation
import HummingbirdWebSocket
import ReceptionCore

/// One WebSocket to the reference Friday server: the frames it writes, in order, and the
/// permission questions waiting for an answer. Like the real runtime, permission ids count
/// from 0 on every connection.
actor FridayReferenceConnection {
    /// How a permission question was answered.
    enum Decision: Sendable, Equatable {
        case allowed
        /// Denied; with `interrupt` (the runtime's default when the answer does not say
        /// `"interrupt": false`) the run stops without another word.
        case denied(interrupt: Bool)
    }

    private let outbound: WebSocketOutboundWriter
    private var nextPermissionID = 0
    private var pending: [Int: CheckedContinuation<Decision, Never>] = [:]

    init(outbound: WebSocketOutboundWriter) {
        self.outbound = outbound
    }

    func send(_ fields: [String: JSONValue]) async throws {
        try await outbound.write(.text(Self.encode(.object(fields))))
    }

    /// Sends `permission_request` and waits for the person's answer.
    func ask(tool: String, input: JSONValue, description: String, workspace: String) async throws -> Decision {
        let id = nextPermissionID
        nextPermissionID += 1
        try await send(["type": .string("permission_request"), "permission_id": .number(Double(id)), "tool_name": .string(tool),
                        "tool_use_id": .string("toolu_ref_\(id)"), "tool_input": input, "description": .string(description),
                        "cwd": .string(workspace),
                        "suggestions": .array([.object(["type": .string("setMode"), "mode": .string("acceptEdits"),
                                                        "destination": .string("session")])])])
        return await withCheckedContinuation { pending[id] = $0 }
    }

    /// A `permission_response`: resolves the question it names (if any), then, as the real
    /// runtime does after every response, sends `permission_cancelled`.
    func answer(_ message: JSONValue) async throws {
        let id = message["permission_id"]?.intValue
        let approved = message["approved"]?.boolValue ?? false
        let interrupt = message["interrupt"]?.boolValue ?? true
        if let id, let waiting = pending.removeValue(forKey: id) {
            waiting.resume(returning: approved ? .allowed : .denied(interrupt: interrupt))
        }
        var cancelled: [String: JSONValue] = ["type": .string("permission_cancelled")]
        if let id { cancelled["permission_id"] = .number(Double(id)) }
        try await send(cancelled)
    }

    /// The socket is gone: questions still open end as an interrupting denial.
    func abandon() {
        for waiting in pending.values { waiting.resume(returning: .denied(interrupt: true)) }
        pending.removeAll()
    }

    func close() async throws {
        try await outbound.close(.goingAway, reason: "reference server dropped the connection")
    }

    static func encode(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

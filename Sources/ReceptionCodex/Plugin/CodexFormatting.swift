import Foundation
import ReceptionCore

/// How workers and their events read in the REPL: one line each, server text bounded (the
/// front end also strips escape sequences from everything a command prints).
enum CodexFormatting {
    static func workerLine(_ worker: CodexWorker) -> String {
        var parts = [clip(worker.workerID, 80), worker.status.rawValue, "latest seq \(worker.latestSeq)"]
        if let state = worker.heartbeatState {
            let age = worker.heartbeatAgeMS.map { " (\(ageText(milliseconds: $0)) ago)" } ?? ""
            parts.append("heartbeat \(clip(state, 20))\(age)")
        }
        if let adapter = worker.adapter { parts.append("adapter \(clip(adapter, 40))") }
        if let workspace = worker.workspaceRef { parts.append("workspace \(clip(workspace, 80))") }
        if let projection = worker.convexProjection, let status = projection.status {
            parts.append("projection \(clip(status, 20))\(projection.lagEvents.map { ", \($0) behind" } ?? "")")
        }
        return parts.joined(separator: " · ")
    }

    static func table(_ workers: [CodexWorker]) -> String {
        guard !workers.isEmpty else { return "No workers." }
        var lines = ["| worker | status | latest seq | heartbeat | adapter | workspace |", "|---|---|---|---|---|---|"]
        for worker in workers.prefix(200) {
            let cells = [clip(worker.workerID, 60), worker.status.rawValue, String(worker.latestSeq),
                         clip(worker.heartbeatState ?? "–", 20), clip(worker.adapter ?? "–", 30), clip(worker.workspaceRef ?? "–", 50)]
            lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "/") }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// `#12 10:42:03 worker.event turn/started · {"thread_id":"t1"}`
    static func eventLine(_ event: CodexEvent) -> String {
        var line = "#\(event.seq)"
        if let time = event.occurredAt.flatMap(clockTime) { line += " " + time }
        line += " " + clip(event.eventType, 60)
        if let method = event.method { line += " " + clip(method, 60) }
        if let detail = detail(of: event.payload) { line += " · " + detail }
        return line
    }

    /// What the payload says beyond what the line already shows.
    static func detail(of payload: JSONValue) -> String? {
        // Strings cleaned before they are written as JSON: an escape sequence's body (a long
        // link, say) would otherwise fill the 160 characters and push the words out.
        guard case .object(var fields) = TerminalText.cleanStrings(payload) else {
            return payload == .null ? nil : clip(Wire.jsonString(TerminalText.cleanStrings(payload)), 160)
        }
        fields["method"] = nil
        fields["occurred_at"] = nil
        guard !fields.isEmpty else { return nil }
        return clip(Wire.jsonString(JSONValue.object(fields)), 160)
    }

    /// `HH:MM:SS` from an ISO 8601 timestamp.
    static func clockTime(_ timestamp: String) -> String? {
        guard let t = timestamp.firstIndex(of: "T") else { return nil }
        let time = timestamp[timestamp.index(after: t)...].prefix(8)
        return time.count == 8 && time.allSatisfy({ $0.isNumber || $0 == ":" }) ? String(time) : nil
    }

    static func ageText(milliseconds: Int) -> String {
        milliseconds < 10_000 ? String(format: "%.1f s", Double(milliseconds) / 1000) : "\(milliseconds / 1000) s"
    }

    /// One line of at most `limit` characters, cleaned before it is cut: a cut inside an
    /// escape sequence left it unterminated, and the REPL's cleaning then took the rest of
    /// the line (an event's payload) for part of it, so the line lost its words.
    static func clip(_ text: String, _ limit: Int) -> String {
        TerminalText.line(text, limit: limit)
    }
}

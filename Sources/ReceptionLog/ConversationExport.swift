import Foundation
import ReceptionCore

/// Conversations as files people and tools read.
public enum ConversationExport {
    /// One line of the classifier's corpus format (`intent-guidelines.md`, "Corpus format"),
    /// which `reception label`, `eval` and `train` read: the message as `text`, its labels only
    /// where the person set them by hand (a label the classifier chose would teach the
    /// classifier itself), its conversation goal, and the exchange's id, so a labelled copy
    /// can be matched back to it.
    public static func corpusLine(_ exchange: ExchangeRecord) -> String {
        var fields = [("id", exchange.id), ("text", exchange.message)]
        if exchange.intentByHand, let intent = exchange.intent { fields.append(("intent", intent.rawValue)) }
        if exchange.urgencyByHand, let urgency = exchange.urgency { fields.append(("urgency", urgency.rawValue)) }
        if let goal = exchange.goal, !goal.isEmpty { fields.append(("goal", goal)) }
        return "{" + fields.map { "\(quote($0.0)): \(quote($0.1))" }.joined(separator: ", ") + "}"
    }

    /// True when both labels were set by hand: a line `eval` and `train` can use as it is.
    public static func isLabelled(_ exchange: ExchangeRecord) -> Bool {
        exchange.intentByHand && exchange.urgencyByHand && exchange.intent != nil && exchange.urgency != nil
    }

    /// A JSON string literal (escape sequences and control characters escaped, so the file
    /// is safe to print and reads back unchanged).
    static func quote(_ text: String) -> String {
        TerminalText.jsonSafe(String(decoding: (try? Wire.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self))
    }

    /// A conversation as Markdown: a header, then each message and its answer as shown, with
    /// how each ended. Text from the log is cleaned of escape sequences (the file may be printed).
    public static func markdown(_ conversation: ConversationRecord, _ exchanges: [ExchangeRecord]) -> String {
        ([markdownHeader(conversation)] + exchanges.map(markdown)).joined(separator: "\n") + "\n"
    }

    /// The header of a conversation's Markdown (`markdown`); each exchange follows, as
    /// `markdown(_:)` writes it, each part on lines of its own, so an export is written a part
    /// at a time.
    public static func markdownHeader(_ conversation: ConversationRecord) -> String {
        var lines = ["# \(MarkdownLiteral.plain(TerminalText.line(conversation.title.isEmpty ? "Conversation" : conversation.title, limit: 200)))", ""]
        lines.append("- conversation: \(conversation.id)")
        lines.append("- started: \(timestamp(conversation.startedAt))")
        lines.append("- backend: \(TerminalText.line(conversation.backend, limit: 80))"
                     + (conversation.endpoint.map { " (\(TerminalText.line($0, limit: 200)))" } ?? ""))
        if let soul = conversation.soul { lines.append("- soul: \(TerminalText.line(soul, limit: 80))") }
        if let model = conversation.model { lines.append("- model: \(TerminalText.line(model, limit: 120))") }
        return lines.joined(separator: "\n")
    }

    /// One exchange of a conversation's Markdown: the message, then how it was answered.
    public static func markdown(_ exchange: ExchangeRecord) -> String {
        var lines = ["", "## You · \(timestamp(exchange.sentAt))" + (labels(exchange).map { " · \($0)" } ?? ""), "",
                     MarkdownLiteral.plain(TerminalText.clean(exchange.message)), ""]
        lines += ["## Reception · " + details(exchange).joined(separator: " · "), ""]
        if !exchange.shown.isEmpty { lines += [MarkdownLiteral.nested(TerminalText.clean(exchange.shown)), ""] }
        if let detail = exchange.detail, detail != exchange.status { lines += ["> \(TerminalText.line(detail, limit: 2000))", ""] }
        lines.removeLast()
        return lines.joined(separator: "\n")
    }

    /// "decision/planning (by hand)", as `/history` shows labels.
    public static func labels(_ exchange: ExchangeRecord) -> String? {
        guard let intent = exchange.intent, let urgency = exchange.urgency else { return nil }
        let hand = exchange.intentByHand && exchange.urgencyByHand ? " (set by hand)"
            : exchange.intentByHand ? " (intent set by hand)" : exchange.urgencyByHand ? " (urgency set by hand)" : ""
        return "\(intent.rawValue)/\(urgency.rawValue)\(hand)"
    }

    /// How the exchange ended, its timings and its tokens, as short phrases.
    public static func details(_ exchange: ExchangeRecord) -> [String] {
        var parts = [exchange.status]
        if let first = exchange.firstCharacterMilliseconds { parts.append("first character after \(milliseconds(first))") }
        if let total = exchange.totalMilliseconds { parts.append("\(milliseconds(total)) in all") }
        if exchange.inputTokens != nil || exchange.outputTokens != nil {
            parts.append("tokens \(exchange.inputTokens.map(String.init) ?? "?") in, \(exchange.outputTokens.map(String.init) ?? "?") out")
        }
        if let model = exchange.model { parts.append(TerminalText.line(model, limit: 60)) }
        return parts
    }

    /// A duration as people read it. Whatever the log holds (a pending line can carry any
    /// number), never a crash: `Int(_:)` traps on a value out of its range.
    static func milliseconds(_ value: Double) -> String {
        guard value.isFinite, value > -1e15, value < 1e15 else { return "?" }
        return abs(value) < 1000 ? "\(Int(value.rounded())) ms" : String(format: "%.1f s", value / 1000)
    }

    /// Local time, to the second: `2026-12-06 10:47:03`.
    public static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}

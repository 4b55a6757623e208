import Foundation
import ReceptionCore

/// How queued messages are listed and chosen, the same in the REPL's `/queue` and in
/// `reception queue` (which reads the queue without starting a session, so nothing is sent).
public enum QueueListing {
    /// Numbered lines, oldest first. With `current` (the REPL's backend), an entry for another
    /// backend says it waits for that one, and one written for another server says so; without
    /// it, every entry names its server, and `profiles` (backend name → where that profile
    /// points now) marks one written for another server, or whose profile is gone.
    public static func render(_ items: [QueuedItem], current: BackendDescriptor?, profiles: [String: ProfileEndpoint] = [:], now: Date = Date()) -> String {
        var lines = ["\(items.count) queued message\(items.count == 1 ? "" : "s"), oldest first:"]
        for (index, item) in items.enumerated() {
            // Names and servers come from a file on disk, texts from people: cleaned.
            var line = "\(index + 1). \(age(since: item.createdAt, now: now)) ago · \(TerminalText.line(item.backend, limit: 60)) · \(TerminalText.line(firstWords(item.request.text), limit: 80))"
            if item.sending { line += " · being sent (or was, when a session stopped)" }
            if let current {
                if item.backend != current.name {
                    line += " · waits for \(TerminalText.line(item.backend, limit: 60))"
                } else if item.isForAnotherServer(of: current) {
                    line += elsewhere(item, now: current.endpoint)
                }
            } else {
                switch profiles[item.backend] {
                case .names(let endpoint)? where item.waitsForAnotherServer(than: endpoint):
                    line += elsewhere(item, now: endpoint)
                case .missing?:
                    line += " · no profile is called \(TerminalText.line(item.backend, limit: 60)) now, so no session sends it"
                default:
                    if let destination = item.destination { line += " · for \(server(destination))" }
                }
            }
            if let error = item.lastError {
                // A message held behind older ones was never tried: its note says so itself.
                let label = error.hasPrefix("not tried") ? "" : "last attempt: "
                line += "\n   \(label)\(TerminalText.line(error, limit: 160))"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The entries `which` names: a number from the listing, or `all`. Nil when it names none.
    public static func choose(_ which: String, in items: [QueuedItem]) -> [QueuedItem]? {
        if which.lowercased() == "all" { return items }
        guard let item = Int(which).flatMap(items.element(numbered:)) else { return nil }
        return [item]
    }

    public static func dropped(_ count: Int, of total: Int) -> String {
        "Dropped \(count) queued message\(count == 1 ? "" : "s"); \(total - count) left."
    }

    /// The same words in `/queue` and `reception queue`.
    static func elsewhere(_ item: QueuedItem, now endpoint: String?) -> String {
        " · written for \(server(item.destination)), not sent to \(server(endpoint))"
    }

    static func server(_ endpoint: String?) -> String {
        endpoint.map { TerminalText.line($0, limit: 120) } ?? "no server"
    }

    static func firstWords(_ text: String, count: Int = 8) -> String {
        let words = text.split(whereSeparator: \.isWhitespace)
        return words.prefix(count).joined(separator: " ") + (words.count > count ? " …" : "")
    }

    static func age(since date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min"
        case ..<86400: return "\(seconds / 3600) h"
        default: return "\(seconds / 86400) d"
        }
    }
}

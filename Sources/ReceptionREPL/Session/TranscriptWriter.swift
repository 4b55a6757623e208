import Foundation
import ReceptionCore

/// The conversation as a Markdown document for `/save`.
enum TranscriptWriter {
    static func markdown(_ entries: [TranscriptEntry], sessionID: String, backend: String, soul: String?) -> String {
        var lines = ["# Reception transcript", "",
                     "- saved: \(Date().formatted(.iso8601))", "- backend: \(backend)", "- soul: \(soul ?? "none")",
                     "- session: \(sessionID)", ""]
        for entry in entries {
            switch entry.speaker {
            // What was typed or said cannot pass for the document's own headings.
            case .person: lines += ["## You", "", MarkdownLiteral.plain(TerminalText.clean(entry.markdown)), ""]
            case .reception: lines += ["## Reception", "", MarkdownLiteral.nested(TerminalText.clean(entry.markdown)), ""]
            case .system: lines += ["> \(TerminalText.clean(entry.markdown, singleLine: true))", ""]
            }
        }
        return lines.joined(separator: "\n")
    }
}

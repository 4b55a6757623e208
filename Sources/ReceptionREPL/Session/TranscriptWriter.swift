import Foundation

/// The conversation as a Markdown document for `/save`.
enum TranscriptWriter {
    static func markdown(_ entries: [TranscriptEntry], sessionID: String, backend: String, soul: String?) -> String {
        var lines = ["# Reception transcript", "",
                     "- saved: \(Date().formatted(.iso8601))", "- backend: \(backend)", "- soul: \(soul ?? "none")",
                     "- session: \(sessionID)", ""]
        for entry in entries {
            switch entry.speaker {
            case .person: lines += ["## You", "", entry.markdown, ""]
            case .reception: lines += ["## Reception", "", entry.markdown, ""]
            case .system: lines += ["> \(entry.markdown)", ""]
            }
        }
        return lines.joined(separator: "\n")
    }
}

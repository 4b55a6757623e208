import Foundation

/// Finds the knowledge folder SwiftPM copies next to the built products.
///
/// `Bundle.module` would stop the process when the bundle is missing (a binary copied
/// elsewhere); this looks in the usual places and reports a clear error instead.
enum ResourceLocator {
    static func knowledgeDirectory() throws -> URL {
        let bundleSuffix = "_ReceptionLocal.resources"
        var candidates: [URL] = []
        // The running binary itself (argv[0] is a bare name when it was found on PATH).
        let executable = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments.first ?? ".")).resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        // Where scripts/install.sh puts it: PREFIX/share/reception beside PREFIX/bin.
        candidates.append(executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share").appendingPathComponent("reception"))
        for directory in candidates {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            if let bundle = entries.first(where: { $0.hasSuffix(bundleSuffix) }) {
                let knowledge = directory.appendingPathComponent(bundle).appendingPathComponent("Knowledge")
                if FileManager.default.fileExists(atPath: knowledge.path) { return knowledge }
            }
        }
        // The executable's folder and the main bundle's are usually one: name each once.
        let searched = candidates.map(\.standardizedFileURL.path).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        throw LocalBackendError.builtInKnowledgeMissing(searched: searched)
    }
}

public enum LocalBackendError: Error, CustomStringConvertible, Sendable, Equatable {
    case knowledgeFolderMissing(String)
    case knowledgeNotAFolder(String)
    case knowledgeFolderEmpty(String)
    case knowledgeFolderUnnamed
    case builtInKnowledgeMissing(searched: [String])

    public var description: String {
        switch self {
        case .knowledgeFolderMissing(let path): "Knowledge folder not found: \(path)"
        case .knowledgeNotAFolder(let path): "\(path) is a file, not a folder: --knowledge takes the folder that holds your Markdown (.md) files"
        case .knowledgeFolderEmpty(let path): "No Markdown (.md or .markdown) files with text in the knowledge folder \(path)"
        case .knowledgeFolderUnnamed: "The knowledge folder is empty text: name the folder of Markdown files (--knowledge ~/notes)"
        case .builtInKnowledgeMissing(let searched):
            "Reception's built-in knowledge (*\("_ReceptionLocal.resources")/Knowledge) is not next to the binary; looked in \(searched.joined(separator: ", ")). A copied binary needs that folder copied beside it; or pass --knowledge DIR."
        }
    }
}

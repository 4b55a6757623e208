import Foundation
import Synchronization
import ReceptionCore

/// The souls a person can switch to: the built-in ones (compiled in from `Souls/`), then
/// each directory in order (a later file with the same id replaces an earlier one).
///
/// ```swift
/// let catalog = SoulCatalog(directories: SoulCatalog.standardDirectories())
/// for entry in catalog.entries() { print(entry.id, entry.name, entry.isBuiltIn) }
/// let soul = try catalog.load("butler")          // by id (file name) or by name ("Ambrose")
/// ```
public struct SoulCatalog: Sendable {
    public struct Entry: Sendable, Hashable {
        /// The file name without `.md`: what `/soul NAME` and `--soul NAME` take.
        public var id: String
        /// The soul's name (front matter, first heading, or the id).
        public var name: String
        public var summary: String?
        /// The file; nil for a built-in soul.
        public var path: String?
        /// Errors found in the file; such a soul cannot be switched to until they are fixed.
        public var errors: [SoulDiagnostic]
        public var isBuiltIn: Bool { path == nil }
    }

    public let directories: [URL]
    public let includeBuiltIn: Bool

    public init(directories: [URL], includeBuiltIn: Bool = true) {
        self.directories = directories
        self.includeBuiltIn = includeBuiltIn
    }

    /// `$XDG_CONFIG_HOME/reception/souls`, or `~/.config/reception/souls`.
    public static func userDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        // A relative XDG_CONFIG_HOME is ignored, as the specification says and as every other
        // folder of Reception's does (it would name a folder under wherever the command ran).
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config).appendingPathComponent("reception/souls")
        }
        return URL(fileURLWithPath: UserPath.home(environment)).appendingPathComponent(".config/reception/souls")
    }

    /// The project's `Souls/` when it can be found (`$RECEPTION_SOULS`, else the first
    /// `Souls/` in the current directory or above the executable), then the user directory.
    public static func standardDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        var directories: [URL] = []
        if let explicit = environment["RECEPTION_SOULS"], !explicit.isEmpty {
            directories.append(URL(fileURLWithPath: explicit))
        } else if let project = projectSoulsDirectory() {
            directories.append(project)
        }
        directories.append(userDirectory(environment: environment))
        return directories
    }

    static func projectSoulsDirectory() -> URL? {
        var starts = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        if let executable = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for start in starts {
            var directory = start
            for _ in 0..<6 {
                let candidate = directory.appendingPathComponent("Souls")
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("default.md").path) { return candidate }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        return nil
    }

    /// Every soul, sorted by id. Files that do not parse are listed with their errors.
    public func entries() -> [Entry] {
        entries { _ in true }
    }

    /// The souls whose id passes `wanted`, sorted by id; only those are read and analysed
    /// (looking one soul up by id must not cost the start-up the analysis of every soul).
    func entries(withID wanted: (String) -> Bool) -> [Entry] {
        var byID: [String: Entry] = [:]
        if includeBuiltIn {
            for (file, text) in EmbeddedResources.souls {
                let id = (file as NSString).deletingPathExtension
                guard wanted(id) else { continue }
                let (soul, diagnostics) = SoulAnalyzer.analyze(text: text, fileName: file)
                byID[id] = Entry(id: id, name: soul.name, summary: soul.summary, path: nil, errors: diagnostics.errors)
            }
            // The neutral voice the REPL falls back to, listed so `--soul plain` works.
            if byID["plain"] == nil, wanted("plain") { byID["plain"] = Entry(id: "plain", name: Soul.plain.name, summary: Soul.plain.summary, path: nil, errors: []) }
        }
        for directory in directories {
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for file in files.sorted() where !file.hasPrefix(".") {
                let url = directory.appendingPathComponent(file)
                let isFolder = SoulAnalyzer.isDirectory(url)
                guard (file.hasSuffix(".md") && file != "README.md") || (isFolder && SoulAnalyzer.folder(url) != nil) else { continue }
                let id = isFolder ? file : (file as NSString).deletingPathExtension
                guard wanted(id) else { continue }
                // Read as `soul lint` reads it: a file that cannot be a soul says why, in the same words.
                do {
                    let (soul, diagnostics) = try SoulAnalyzer.analyze(contentsOf: url)
                    byID[id] = Entry(id: id, name: soul.name, summary: soul.summary, path: url.path, errors: diagnostics.errors)
                } catch let error as SoulParser.ParseError {
                    byID[id] = Entry(id: id, name: id, summary: nil, path: url.path, errors: error.diagnostics)
                } catch {
                    byID[id] = Entry(id: id, name: id, summary: nil, path: url.path,
                                     errors: [SoulDiagnostic(.error, file: url.path, line: 1, message: "cannot read the \(isFolder ? "folder" : "file")")])
                }
            }
        }
        return byID.values.sorted { $0.id < $1.id }
    }

    public enum LookupError: Error, CustomStringConvertible, Sendable {
        case notFound(String, known: [String])

        public var description: String {
            switch self {
            case .notFound(let name, let known): "no soul named \"\(name)\"; known: \(known.joined(separator: ", "))"
            }
        }
    }

    /// The entry whose id or name matches, ignoring case.
    public func entry(_ idOrName: String) -> Entry? {
        let wanted = idOrName.lowercased()
        return entries(withID: { $0.lowercased() == wanted }).first ?? entries().first { $0.name.lowercased() == wanted }
    }

    /// Loads a soul by id or name; throws `SoulParser.ParseError` if its file has errors.
    public func load(_ idOrName: String) throws -> Soul {
        guard let entry = entry(idOrName) else { throw LookupError.notFound(idOrName, known: entries().map(\.id)) }
        if let path = entry.path { return try SoulParser.load(contentsOf: URL(fileURLWithPath: path)) }
        guard let text = EmbeddedResources.souls[entry.id + ".md"] else { return .plain }
        return try SoulParser.parse(text, fileName: entry.id + ".md")
    }

    /// The soul the REPL starts with: `default`, else `Soul.plain`.
    public func defaultSoul() -> Soul {
        (try? load("default")) ?? .plain
    }

    /// The text of a built-in soul file, nil for an unknown id. `plain` has no file in Souls/:
    /// its text here reads as `Soul.plain`, so every soul tool can open it (`soul show plain`
    /// said "no such file or known soul" while listing it as known).
    public static func builtInText(_ id: String) -> String? {
        id == "plain" ? plainText : EmbeddedResources.souls[id + ".md"]
    }

    static let plainText = """
    ---
    name: plain
    description: Neutral, direct, no flourishes.
    emoji: none
    ---
    # plain

    Neutral, direct, no flourishes.
    """

    /// A built-in soul by id (`default`, `butler`…), without looking at any directory.
    public static func builtIn(_ id: String) -> Soul? {
        if id == "plain" { return .plain }
        guard let text = EmbeddedResources.souls[id + ".md"] else { return nil }
        return try? SoulParser.parse(text, fileName: id + ".md")
    }
}

/// Reloads the current soul from its file: on `/soul reload`, and when the file changes on
/// disk. A broken edit keeps the last good soul in the store and reports the errors.
///
/// ```swift
/// let reloader = SoulReloader(store: store, url: URL(fileURLWithPath: path))
/// let task = reloader.watch { event in if case .failed(let errors) = event { show(errors) } }
/// ```
public final class SoulReloader: Sendable {
    public enum Event: Sendable, Hashable {
        /// The file parsed; the store holds the new soul. Warnings, if any, are attached.
        case reloaded(Soul, warnings: [SoulDiagnostic])
        /// The file has errors (or is unreadable); the store still holds the last good soul.
        case failed([SoulDiagnostic])
    }

    public let store: SoulStore
    public let url: URL
    private let lastText: Mutex<String?>

    public init(store: SoulStore, url: URL) {
        self.store = store
        self.url = url
        lastText = Mutex(try? SoulParser.text(contentsOf: url))
    }

    /// Reads, lints and (when there are no errors) installs the soul.
    public func reload() -> Event {
        let text: String
        do {
            text = try SoulParser.text(contentsOf: url)
        } catch let error as SoulParser.ParseError {
            return .failed(error.diagnostics)
        } catch {
            return .failed([SoulDiagnostic(.error, file: url.path, line: 1, message: "cannot read the file")])
        }
        lastText.withLock { $0 = text }
        return install(text)
    }

    /// An event when the file's text changed since the last look, nil otherwise.
    public func checkForChanges() -> Event? {
        guard let text = try? SoulParser.text(contentsOf: url) else { return nil }  // mid-save: look again later
        let changed = lastText.withLock { last -> Bool in
            defer { last = text }
            return last != text
        }
        return changed ? install(text) : nil
    }

    /// Polls the file until the task is cancelled.
    public func watch(every interval: Duration = .seconds(1), onEvent: @escaping @Sendable (Event) -> Void) -> Task<Void, Never> {
        Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                if let event = checkForChanges() { onEvent(event) }
            }
        }
    }

    private func install(_ text: String) -> Event {
        let (soul, diagnostics) = SoulAnalyzer.analyze(text: text, fileName: url.path)
        if diagnostics.hasErrors { return .failed(diagnostics.errors) }
        var installed = soul
        installed.sourcePath = url.path
        store.current = installed
        return .reloaded(installed, warnings: diagnostics.warnings)
    }
}

import Foundation
import ReceptionCore
import ReceptionREPL
import ReceptionSoul
import Synchronization

/// The REPL's view of the personality layer: the souls of a `SoulCatalog` (built-in ones,
/// the project's `Souls/`, the user's `$XDG_CONFIG_HOME/reception/souls`, or any file by
/// path), the current one, and its live reload.
final class SoulLibrary: SoulControl {
    let store: SoulStore
    let catalog: SoulCatalog
    /// The current soul's file (nil for a built-in soul) and its last seen modification time.
    /// The current soul's file, when it was last read, and whether that reading failed (the
    /// soul in use is then the last one read without errors, not what the file holds now).
    private let file: Mutex<(url: URL?, modified: Date?, kept: Bool)>
    /// The catalog id the current soul was chosen by, when it was chosen by one: the status
    /// line's label without reading every soul folder (`catalog.entries()` parses each file,
    /// a 10 ms start-up cost on the way to the first prompt).
    private let chosenID: Mutex<String?>
    /// The rewrite stage's record, when one is wired (`--rewrite PROFILE`), for `/soul why`.
    private let rewriteLog = Mutex<RewriteLog?>(nil)

    func useRewriteLog(_ log: RewriteLog) { rewriteLog.withLock { $0 = log } }

    func why() -> String {
        guard let log = rewriteLog.withLock({ $0 }) else {
            return "The rewrite stage is off: answers show \(store.current.name)'s deterministic rendering. `--rewrite PROFILE` (an openai profile), or `\"rewrite\": true` in one, turns it on."
        }
        return log.explanation()
    }

    /// Starts on `nameOrPath`: a catalog id or name, or a path to a .md file.
    init(catalog: SoulCatalog, initial nameOrPath: String) throws {
        self.catalog = catalog
        let (soul, url, id) = try Self.resolve(nameOrPath, in: catalog)
        store = SoulStore(soul)
        file = Mutex((url, url.flatMap(Self.modificationDate), false))
        chosenID = Mutex(id)
    }

    private static func resolve(_ nameOrPath: String, in catalog: SoulCatalog) throws -> (Soul, URL?, id: String?) {
        if nameOrPath.contains("/") || nameOrPath.lowercased().hasSuffix(".md") || (nameOrPath.hasPrefix("~") || FileManager.default.fileExists(atPath: nameOrPath)) && catalog.entry(nameOrPath) == nil {
            let url = URL(fileURLWithPath: UserPath.expand(nameOrPath))
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                throw PlainFile.brokenLink(url.path).map { SoulLibraryError.brokenLink(url.path, $0) } ?? SoulLibraryError.noFile(url.path)
            }
            // Any readable file parses as prose, so /etc/passwd would become a "soul" with a
            // voice guessed from its lines: only Markdown files and soul folders are souls.
            guard isFolder.boolValue || ["md", "markdown"].contains(url.pathExtension.lowercased()) else {
                throw SoulLibraryError.notMarkdown(url.path)
            }
            return (try SoulParser.load(contentsOf: url), url, nil)
        }
        guard let entry = catalog.entry(nameOrPath) else {
            throw SoulLibraryError.notFound(nameOrPath, known: catalog.entries().map(\.id))
        }
        return (try catalog.load(entry.id), entry.path.map { URL(fileURLWithPath: $0) }, entry.id)
    }

    var currentName: String { store.current.name }
    /// The file the current soul was read from; nil for a built-in one.
    private var currentPath: String? { file.withLock { $0.url?.standardizedFileURL.path } }

    /// The catalog id of the current soul: the entry read from its file, or the built-in one
    /// of its name (ids and names differ: "default" is "Default"). Reads every soul folder.
    var currentID: String? {
        let path = currentPath
        return catalog.entries().first { entry in
            if let path { return entry.path.map { URL(fileURLWithPath: $0).standardizedFileURL.path } == path }
            return entry.path == nil && entry.name == store.current.name
        }?.id
    }
    var greeting: String? { store.current.greeting }
    func names() -> [String] { catalog.entries().map(\.id) }
    func listing() -> [(id: String, errors: Int)] { catalog.entries().map { ($0.id, $0.errors.count) } }

    /// A file outside the soul folders by its path, with the home folder as `~` (the log keeps
    /// no user name it does not need; `use` expands it again).
    var currentReference: String? {
        // The id it was chosen by first: the log asks at every exchange, and `currentID`
        // reads every soul folder.
        chosenID.withLock({ $0 }) ?? currentID ?? currentPath.map { UserPath.abbreviate($0) } ?? currentName
    }

    var currentLabel: String {
        guard let id = chosenID.withLock({ $0 }), id.lowercased() != currentName.lowercased() else { return currentName }
        return "\(currentName) (\(id))"
    }

    func use(_ nameOrPath: String) throws -> String {
        let (soul, url, id) = try Self.resolve(nameOrPath, in: catalog)
        store.current = soul
        file.withLock { $0 = (url, url.flatMap(Self.modificationDate), false) }
        chosenID.withLock { $0 = id }
        return "Now speaking as \(soul.name)" + (url.map { " (\($0.path))." } ?? " (built in).")
    }

    func show() -> String {
        if let url = file.withLock({ $0.url }), let text = try? String(contentsOf: url, encoding: .utf8) {
            // The file on disk is what can be edited and pasted; after a failed reload it is
            // not the soul in use, so say so.
            let kept = file.withLock { $0.kept }
                ? "(This file has errors since it was last read: \(store.current.name) speaks on as last read without them. /soul reload lists the errors.)\n"
                : ""
            return kept + "── \(url.path) ──\n" + text
        }
        if let url = file.withLock({ $0.url }) {
            // A soul folder: its files, main one first.
            let soul = store.current
            return (["── \(url.path) ──\n" + soul.body] + soul.companions.map { "── \($0.name) ──\n\($0.text)" }).joined(separator: "\n\n")
        }
        return "\(store.current.name) is built into Reception (no file to edit). `reception soul new NAME` starts one of your own.\n\n" + store.current.body
    }

    func reload() -> String {
        guard let url = file.withLock({ $0.url }) else { return "\(store.current.name) is built in: there is no file to reload." }
        return load(url) ?? "Reloaded \(store.current.name) from \(url.path)."
    }

    func reloadIfChanged() -> String? {
        guard let url = file.withLock({ $0.url }) else { return nil }
        guard Self.modificationDate(url) != file.withLock({ $0.modified }) else { return nil }
        return load(url) ?? "\(url.lastPathComponent) changed on disk; reloaded \(store.current.name)."
    }

    /// Loads `url` into the store; on errors keeps the last good soul and returns the
    /// located lint errors.
    private func load(_ url: URL) -> String? {
        file.withLock { $0.modified = Self.modificationDate(url) }
        guard FileManager.default.fileExists(atPath: url.path) else {
            let what = PlainFile.brokenLink(url.path).map { "is now \($0)" } ?? "is gone (moved or deleted)"
            return "\(url.path) \(what); \(store.current.name) speaks on as last read. /soul NAME or /soul FILE switches."
        }
        do {
            store.current = try SoulParser.load(contentsOf: url)
            file.withLock { $0.kept = false }
            return nil
        } catch {
            file.withLock { $0.kept = true }
            return "Kept \(store.current.name): \(url.lastPathComponent) has errors:\n\(error)"
        }
    }

    /// A file's modification time; for a soul folder, the latest of its files'.
    static func modificationDate(_ url: URL) -> Date? {
        var dates = [(try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date]
        if let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.contentModificationDateKey]) {
            for case let file as URL in enumerator.prefix(64) {
                dates.append((try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate)
            }
        }
        return dates.compactMap { $0 }.max()
    }
}

enum SoulLibraryError: Error, CustomStringConvertible {
    case notFound(String, known: [String])
    case noFile(String)
    case brokenLink(String, String)
    case notMarkdown(String)

    var description: String {
        switch self {
        case .notFound(let name, let known):
            "No soul named \"\(name)\"." + (known.isEmpty ? "" : " Known: \(known.joined(separator: ", ")).") + " A path to a .md file works too."
        case .noFile(let path):
            "No soul file at \(path)."
        case .brokenLink(let path, let what):
            "\(path) cannot be read: it is \(what)."
        case .notMarkdown(let path):
            "\(path) is not a soul: a soul is a .md file, or a folder holding SOUL.md."
        }
    }
}

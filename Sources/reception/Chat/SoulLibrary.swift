import Foundation
import ReceptionREPL
import ReceptionSoul
import Synchronization

/// The souls the REPL can switch between, and the live reload of the current file.
///
/// Souls are `*.md` files (except README.md) in, by priority: the user's
/// `$XDG_CONFIG_HOME/reception/souls`, `./Souls`, and the `Souls` folder of the checkout
/// the binary was built in.
final class SoulLibrary: SoulControl {
    let store: SoulStore
    private let state: Mutex<(url: URL?, modified: Date?)>
    let directories: [URL]

    init(store: SoulStore, current: URL?, directories: [URL]) {
        self.store = store
        self.directories = directories
        state = Mutex((current, current.flatMap(Self.modificationDate)))
    }

    static func defaultDirectories() -> [URL] {
        var directories = [XDG.configHome.appendingPathComponent("reception/souls"),
                           URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Souls")]
        directories += XDG.executableAncestors.map { $0.appendingPathComponent("Souls") }
        var seen = Set<String>()
        return directories.filter { FileManager.default.fileExists(atPath: $0.path) && seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// Every soul file by name; the first directory that has a name wins.
    func files() -> [(name: String, url: URL)] {
        var found: [String: URL] = [:]
        var order: [String] = []
        for directory in directories {
            let entries = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            for entry in entries where entry.lowercased().hasSuffix(".md") && entry.lowercased() != "readme.md" {
                let name = String(entry.dropLast(3))
                if found[name] == nil { found[name] = directory.appendingPathComponent(entry); order.append(name) }
            }
        }
        return order.map { ($0, found[$0]!) }
    }

    /// A soul file by name, or a path to one.
    func locate(_ nameOrPath: String) -> URL? {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".md") {
            let url = URL(fileURLWithPath: (nameOrPath as NSString).expandingTildeInPath)
            return FileManager.default.fileExists(atPath: url.path) ? url : nil
        }
        return files().first { $0.name == nameOrPath }?.url
    }

    var currentName: String { store.current.name }
    var greeting: String? { store.current.greeting }
    func names() -> [String] { files().map(\.name) }

    func use(_ nameOrPath: String) throws -> String {
        guard let url = locate(nameOrPath) else {
            throw SoulLibraryError.notFound(nameOrPath, known: names())
        }
        store.current = try SoulParser.load(contentsOf: url)
        state.withLock { $0 = (url, Self.modificationDate(url)) }
        return "Now speaking as \(store.current.name) (\(url.path))."
    }

    func show() -> String {
        guard let url = state.withLock({ $0.url }), let text = try? String(contentsOf: url, encoding: .utf8) else {
            return "The built-in plain soul (no file): neutral and direct."
        }
        return "`\(url.path)`\n\n" + text
    }

    func reload() -> String {
        guard let url = state.withLock({ $0.url }) else { return "The built-in plain soul has no file to reload." }
        return load(url) ?? "Reloaded \(store.current.name) from \(url.path)."
    }

    func reloadIfChanged() -> String? {
        guard let url = state.withLock({ $0.url }) else { return nil }
        let modified = Self.modificationDate(url)
        guard modified != state.withLock({ $0.modified }) else { return nil }
        return load(url) ?? "\(url.lastPathComponent) changed on disk; reloaded \(store.current.name)."
    }

    /// Loads `url` into the store; on failure keeps the last good soul and returns the error.
    private func load(_ url: URL) -> String? {
        state.withLock { $0.modified = Self.modificationDate(url) }
        do {
            store.current = try SoulParser.load(contentsOf: url)
            return nil
        } catch {
            return "Kept \(store.current.name): \(url.lastPathComponent) has errors:\n\(error)"
        }
    }

    static func modificationDate(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }
}

enum SoulLibraryError: Error, CustomStringConvertible {
    case notFound(String, known: [String])

    var description: String {
        switch self {
        case .notFound(let name, let known):
            "No soul named \"\(name)\"." + (known.isEmpty ? "" : " Known: \(known.joined(separator: ", ")).") + " A path to a .md file works too."
        }
    }
}

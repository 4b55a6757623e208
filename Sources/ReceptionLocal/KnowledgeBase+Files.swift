import Foundation

extension KnowledgeBase {
    /// The notes under `root`, each with its path as the person sees it (through a link, the
    /// link's name), sorted by that path. A folder named "x.md" is a folder. Hidden files and
    /// folders (".git", ".obsidian", ".trash") are an editor's or a tool's, not the notes.
    /// A link to a folder elsewhere (~/notes/work → ~/Dropbox/work) is followed, once: a link
    /// into a tree being read, or up to a folder holding one, would read files twice or for
    /// ever, so it is not.
    static func noteFiles(under root: URL) -> [(url: URL, relative: String)] {
        var files: [(url: URL, relative: String)] = []
        // The trees being read: the notes folder and each folder a followed link points to.
        var trees: [String] = [root.path]
        func overlapsATree(_ path: String) -> Bool {
            trees.contains { $0 == path || path.hasPrefix($0 + "/") || $0.hasPrefix(path == "/" ? "/" : path + "/") }
        }
        var folders: [(url: URL, relative: String)] = [(root, "")]
        let keys: [URLResourceKey] = [.isDirectoryKey, .isSymbolicLinkKey]
        while let (folder, prefix) = folders.popLast() {
            // By name: which of two links to one folder is followed must not depend on the order
            // the file system lists them in.
            let entries = ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])) ?? [])
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
            for entry in entries {
                let name = entry.lastPathComponent
                let relative = prefix.isEmpty ? name : prefix + "/" + name
                let values = try? entry.resourceValues(forKeys: Set(keys))
                var isFolder = values?.isDirectory == true
                var listed = entry
                if values?.isSymbolicLink == true {
                    // Listed where it points: Foundation lists a link to a folder as empty.
                    let target = entry.resolvingSymlinksInPath().standardizedFileURL
                    listed = target
                    var targetIsFolder: ObjCBool = false
                    isFolder = FileManager.default.fileExists(atPath: target.path, isDirectory: &targetIsFolder) && targetIsFolder.boolValue
                    if isFolder {
                        guard !overlapsATree(target.path) else { continue }
                        trees.append(target.path)
                    }
                }
                if isFolder {
                    folders.append((listed, relative))
                } else if ["md", "markdown"].contains(entry.pathExtension.lowercased()) {
                    files.append((entry, relative))
                }
            }
        }
        return files.sorted { $0.relative < $1.relative }
    }
}

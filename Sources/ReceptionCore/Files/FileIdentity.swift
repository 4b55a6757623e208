import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether two paths name one file: through a link, another spelling ("./a", "../x/a") or a
/// hard link. An output that is one of its command's inputs (`train corpus.jsonl --out
/// corpus.jsonl --force`, `logs export -o` the log's own database) would replace what it reads.
public enum FileIdentity {
    /// By device and inode when both are there; else by their resolved paths.
    public static func same(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        if stat(first, &a) == 0, stat(second, &b) == 0 { return a.st_dev == b.st_dev && a.st_ino == b.st_ino }
        return resolved(first) == resolved(second)
    }

    /// `path` absolute, with its folder's symbolic links and `..` resolved, and the name too
    /// when it is a link to something that is there; spelt as typed where nothing resolves.
    public static func resolved(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL
        if let real = realPath(absolute.path) { return real }
        let parent = absolute.deletingLastPathComponent().path
        return (realPath(parent) ?? parent) + "/" + absolute.lastPathComponent
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

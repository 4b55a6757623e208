import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether two paths name one file: through a link, another spelling ("./a", "../x/a") or a
/// hard link. An output that is one of its command's inputs (`train corpus.jsonl --out
/// corpus.jsonl --force`) would replace what it is reading.
public enum FileIdentity {
    public static func same(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        if stat(first, &a) == 0, stat(second, &b) == 0 { return a.st_dev == b.st_dev && a.st_ino == b.st_ino }
        // One does not exist yet: the same path, once spelled the same way, is the same file.
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path }
        return resolved(first) == resolved(second)
    }
}

import Foundation
@testable import ReceptionREPL
import ReceptionTestSupport
import Testing

/// The input history holds what the person typed. A FIFO at its path hung the
/// REPL before its prompt, an existing 0644 file stayed 0644, and a link was followed, so the
/// lines went into the file it pointed to.
@Suite("Input history file")
struct HistoryFileTests {
    let directory = Scratch.root.appendingPathComponent("reception-history-\(UUID().uuidString)").path

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode : nil
    }

    @Test func aMissingFileIsCreatedPrivateAndAnOthersReadableOneIsTightened() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = directory + "/state/reception/history"
        #expect(HistoryFile.prepare(fresh) == nil)
        #expect(mode(fresh).map { $0 & 0o777 } == 0o600)
        #expect(mode(directory + "/state/reception").map { $0 & 0o777 } == 0o700)
        let old = directory + "/old-history"
        try "earlier line\n".write(toFile: old, atomically: false, encoding: .utf8)
        #expect(chmod(old, 0o644) == 0)
        #expect(HistoryFile.prepare(old) == nil)
        #expect(mode(old).map { $0 & 0o777 } == 0o600)
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "earlier line\n", "kept, only tightened")
    }

    @Test func aFIFOALinkOrAFolderIsRefusedAndLeftAsItIs() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo", link = directory + "/link", dangling = directory + "/dangling", shared = directory + "/shared.txt"
        try "shared\n".write(toFile: shared, atomically: false, encoding: .utf8)
        #expect(chmod(shared, 0o644) == 0)
        #expect(mkfifo(fifo, 0o600) == 0 && symlink(shared, link) == 0 && symlink(directory + "/nowhere", dangling) == 0)
        #expect(HistoryFile.prepare(fifo) == "the history file \(fifo) is a named pipe (FIFO), not a regular file")
        #expect(HistoryFile.prepare(link) == "the history file \(link) is a symbolic link, not a regular file")
        #expect(HistoryFile.prepare(dangling) == "the history file \(dangling) is a symbolic link, not a regular file")
        #expect(HistoryFile.prepare(directory) == "the history file \(directory) is a folder, not a regular file")
        #expect(mode(shared).map { $0 & 0o777 } == 0o644, "the link's target is not touched")
        #expect(!FileManager.default.fileExists(atPath: directory + "/nowhere"), "nothing created through the dangling link")
        #expect(mode(fifo).map { $0 & S_IFMT } == S_IFIFO)
    }
}

import Foundation
import ReceptionCore
@testable import ReceptionREPL
import ReceptionTestSupport
import Testing

/// A name checked and then written to later can be swapped for a link in between. Files that
/// hold what a person typed or said are opened once, without following a link, and written
/// through that descriptor or by a rename that never follows one.
@Suite("Paths swapped for links between a check and a write")
struct SwappedPathTests {
    let directory = Scratch.root.appendingPathComponent("reception-swap-\(UUID().uuidString)").path

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode : nil
    }

    /// The session checks the history file when it starts and appends a line whenever one is
    /// typed: a link put at its name in between (the session may run for days) must not get
    /// the lines, which go on into the file the session opened.
    @Test func linesTypedAfterTheHistoryFileWasSwappedForALinkDoNotReachTheLinksTarget() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/history"
        let victim = directory + "/someone-elses-file"
        try "theirs\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(chmod(victim, 0o644) == 0)
        let reader = ReadlineLineReader(historyPath: path) { _, _ in [] }
        #expect(reader.historyProblem == nil)
        reader.remember("first line")
        // The swap: the checked file moves away and a link takes its name.
        let moved = directory + "/history.moved"
        #expect(rename(path, moved) == 0)
        #expect(symlink(victim, path) == 0)
        reader.remember("typed after the swap")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "theirs\n", "nothing reached the link's target")
        #expect(mode(victim).map { $0 & 0o777 } == 0o644)
        #expect(try String(contentsOfFile: moved, encoding: .utf8) == "first line\ntyped after the swap\n",
                "the lines went on into the file the session opened")
    }

    /// A history file trimmed at start replaces the name in one rename: a link found there is
    /// refused when the session opens it; the lines are read and kept as they were.
    @Test func aLongHistoryIsTrimmedToItsLastLinesInPlace() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/history"
        try (1...3_000).map { "line \($0)" }.joined(separator: "\n").appending("\n").write(toFile: path, atomically: false, encoding: .utf8)
        let reader = ReadlineLineReader(historyPath: path) { _, _ in [] }
        reader.remember("newest")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2_001)
        #expect(lines.first == "line 1001" && lines.last == "newest")
        #expect(mode(path).map { $0 & 0o777 } == 0o600)
    }

    /// `/save` without `--force` never replaces what is at the name, whenever it appeared: the
    /// file takes the name with a link(2) that fails if anything is there.
    @Test func aWriteThatMustNotReplaceLeavesWhatIsThereWhateverItIs() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let victim = directory + "/target-of-link"
        try "kept\n".write(toFile: victim, atomically: false, encoding: .utf8)
        let link = directory + "/link.md", file = directory + "/file.md", fifo = directory + "/fifo.md"
        #expect(symlink(victim, link) == 0 && mkfifo(fifo, 0o600) == 0)
        try "mine\n".write(toFile: file, atomically: false, encoding: .utf8)
        for name in [link, file, fifo] {
            #expect(throws: PrivateFile.Failure.self) { try PrivateFile.write(Data("new\n".utf8), to: URL(fileURLWithPath: name), existing: .refuse) }
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "kept\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "mine\n")
        #expect(mode(link).map { $0 & S_IFMT } == S_IFLNK && mode(fifo).map { $0 & S_IFMT } == S_IFIFO)
        let fresh = directory + "/fresh.md"
        try PrivateFile.write(Data("new\n".utf8), to: URL(fileURLWithPath: fresh), existing: .refuse)
        #expect(try String(contentsOfFile: fresh, encoding: .utf8) == "new\n")
        #expect(mode(fresh).map { $0 & 0o777 } == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "no temporary file is left behind: \(leftovers)")
    }

    /// A private data file's mode is checked and tightened on the opened descriptor: a link at
    /// its name is refused by the open itself, and the file it points to keeps its mode.
    @Test func aPrivateFileIsPreparedThroughItsDescriptor() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let victim = directory + "/shared.txt"
        try "shared\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(chmod(victim, 0o644) == 0)
        let link = directory + "/state/queue.sqlite"
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        #expect(symlink(victim, link) == 0)
        #expect(throws: PrivateFile.Failure.self) { try PrivateFile.prepare(link) }
        #expect(mode(victim).map { $0 & 0o777 } == 0o644)
        let lax = directory + "/state/cache.sqlite"
        try "".write(toFile: lax, atomically: false, encoding: .utf8)
        #expect(chmod(lax, 0o644) == 0)
        try PrivateFile.prepare(lax)
        #expect(mode(lax).map { $0 & 0o777 } == 0o600)
        let fifo = directory + "/state/fifo.sqlite"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: PrivateFile.Failure.self) { try PrivateFile.prepare(fifo) }
    }
}

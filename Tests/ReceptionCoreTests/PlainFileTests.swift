import Foundation
import ReceptionCore
import ReceptionTestSupport
import Testing

/// A directory, a FIFO, a missing, oversized or non-UTF-8 file named by a
/// person gets a plain message with its path, never Foundation's "could not be completed",
/// and a FIFO is never opened (it would block for ever).
@Suite("Reading files people name")
struct PlainFileTests {
    let directory = Scratch.root.appendingPathComponent("plainfile-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func problem(_ body: () throws -> Any) -> String {
        do { _ = try body(); return "no error" } catch { return "\(error)" }
    }

    @Test func whatIsNotARegularFileIsNamedForWhatItIs() throws {
        let fifo = directory.appendingPathComponent("pipe.jsonl").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(problem { try PlainFile.read(fifo) } == "\(fifo): is a named pipe (FIFO), not a regular file")
        #expect(problem { try PlainFile.read(directory.path) } == "\(directory.path): is a directory, not a file")
        let missing = directory.appendingPathComponent("missing.md").path
        #expect(problem { try PlainFile.read(missing) } == "\(missing): no such file")
        #expect(problem { try PlainFile.read("/dev/null") } == "/dev/null: is a device, not a regular file")
    }

    @Test func anOversizedFileIsRefusedBeforeItIsRead() throws {
        let big = directory.appendingPathComponent("big.txt")
        try Data(repeating: 0x61, count: 3 << 20).write(to: big)
        #expect(problem { try PlainFile.read(big.path, limit: 1 << 20) } == "\(big.path): is 3145728 bytes, more than the 1048576 (1 MB) this reads")
        // Just over the limit said in bytes, not as "1 MB, larger than 1 MB".
        let over = directory.appendingPathComponent("over.txt")
        try Data(repeating: 0x61, count: (1 << 20) + 100).write(to: over)
        #expect(problem { try PlainFile.read(over.path, limit: 1 << 20) } == "\(over.path): is 1048676 bytes, more than the 1048576 (1 MB) this reads")
        // A key file's small limit is said in KB ("(0 MB)" read as a mistake).
        #expect(problem { try PlainFile.read(over.path, limit: 1 << 16) } == "\(over.path): is 1048676 bytes, more than the 65536 (64 KB) this reads")
        #expect(try PlainFile.read(big.path).count == 3 << 20)
    }

    @Test func textThatIsNotUTF8NamesTheOffset() throws {
        let file = directory.appendingPathComponent("latin1.md")
        try Data("caf".utf8 + [0xE9, 0x0A]).write(to: file)
        #expect(problem { try PlainFile.readText(file.path) } == "\(file.path): is not UTF-8 text (the bytes at offset 3 are not valid UTF-8)")
        try Data("café\n".utf8).write(to: file)
        #expect(try PlainFile.readText(file.path) == "café\n")
    }

    /// On Linux a failed Foundation write often carries no POSIX error: "cannot write the report
    /// into /proc/nope: The operation could not be completed. The file doesn’t exist." Its code
    /// is said in words; a failure with a POSIX error under it keeps that one's.
    @Test func foundationsFileErrorsAreSaidInWords() throws {
        #expect(PlainFile.reason(of: CocoaError(.fileNoSuchFile)) == "no such file or folder")
        #expect(PlainFile.reason(of: CocoaError(.fileWriteNoPermission)) == "permission denied")
        #expect(PlainFile.reason(of: CocoaError(.fileWriteOutOfSpace)) == "no space left on the device")
        let missing = directory.appendingPathComponent("no/such/folder/file.txt")
        #expect(throws: (any Error).self) { try Data("x".utf8).write(to: missing) }
        do { try Data("x".utf8).write(to: missing) } catch {
            #expect(!PlainFile.reason(of: error).contains("could not be completed"), "\(PlainFile.reason(of: error))")
        }
    }

}

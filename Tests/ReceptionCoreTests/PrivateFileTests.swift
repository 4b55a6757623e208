import Foundation
import ReceptionCore
import ReceptionTestSupport
import Synchronization
import Testing

/// Files that hold conversation data (`/save` transcripts, `eval --report`, the queue and the
/// caches): only their owner can read them, at every moment, whatever the umask.
@Suite("Private files")
struct PrivateFileTests {
    let directory = Scratch.root.appendingPathComponent("privatefile-\(UUID().uuidString)").path

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// A folder that is there but makes no new files (`/proc`) answers "no such file" to a
    /// create: that was said as "the folder /proc does not exist".
    @Test func aFolderThatMakesNoFilesIsNotCalledMissing() throws {
        let target = URL(fileURLWithPath: "/proc/reception-\(UUID().uuidString).md")
        #expect {
            try PrivateFile.write(to: target) { append in try append(Data("x".utf8)) }
        } throws: { "\($0)" == "cannot create a file in /proc (the folder takes no new files)" }
        let missing = URL(fileURLWithPath: directory + "/no-such-folder/t.md")
        #expect {
            try PrivateFile.write(to: missing) { append in try append(Data("x".utf8)) }
        } throws: { "\($0)" == "the folder \(directory)/no-such-folder does not exist" }
    }

    /// The temporary file was created 0666 less the umask and tightened to
    /// 0600 only after the text was in it, so another user could open it meanwhile. A watcher
    /// looks at the folder while a large file is written under umask 000.
    @Test func aFileIsNeverReadableByOthersWhileItIsWrittenEvenUnderUmask000() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/talk.md"
        let watcher = FolderWatcher(directory: directory)
        let previous = umask(0)
        defer { umask(previous) }
        watcher.start()
        // Large enough that writing (and flushing) it takes a while the watcher can see.
        try PrivateFile.write(Data(repeating: 0x41, count: 64 << 20), to: URL(fileURLWithPath: target))
        let seen = watcher.stop()
        #expect(seen.keys.contains { $0 != "talk.md" }, "the watcher saw the file while it was written: \(seen)")
        for (name, mode) in seen {
            #expect(mode & 0o077 == 0, "\(name) had mode \(String(mode, radix: 8)): readable by others")
        }
        var info = stat()
        #expect(lstat(target, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["talk.md"], "no temporary file left behind")
    }
}

extension PrivateFileTests {
    /// For every writer (`/save`, `eval --report`): a FIFO, a device or a link
    /// at the target is refused with what it is, not replaced by the rename.
    @Test func aTargetThatIsNotARegularFileIsRefusedAndLeftAsItIs() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/pipe.md", link = directory + "/link.md"
        #expect(mkfifo(fifo, 0o600) == 0 && symlink(directory + "/nowhere.md", link) == 0)
        for (path, kind) in [(fifo, "a named pipe (FIFO)"), (link, "a symbolic link")] {
            do {
                try PrivateFile.write(Data("text".utf8), to: URL(fileURLWithPath: path))
                Issue.record("\(path) was replaced")
            } catch {
                #expect("\(error)" == "\(path) is \(kind), not a regular file; it is left as it is")
            }
        }
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(!FileManager.default.fileExists(atPath: directory + "/nowhere.md"))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["pipe.md", "link.md"], "no temporary file left behind")
        // A regular file is still replaced.
        let file = directory + "/notes.md"
        try "old".write(toFile: file, atomically: false, encoding: .utf8)
        try PrivateFile.write(Data("new".utf8), to: URL(fileURLWithPath: file))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "new")
    }
}

/// Lists a folder over and over on its own thread and keeps the widest mode each entry had.
final class FolderWatcher: Sendable {
    let directory: String
    private let running = Atomic<Bool>(false)
    private let modes = Mutex<[String: mode_t]>([:])
    private let finished = DispatchSemaphore(value: 0)

    init(directory: String) { self.directory = directory }

    func start() {
        running.store(true, ordering: .sequentiallyConsistent)
        let started = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            var first = true
            while running.load(ordering: .sequentiallyConsistent) {
                look()
                if first { started.signal(); first = false }
            }
            finished.signal()
        }
        started.wait()
    }

    /// Every entry seen, with the widest permission bits it had.
    func stop() -> [String: mode_t] {
        running.store(false, ordering: .sequentiallyConsistent)
        finished.wait()
        look()
        return modes.withLock { $0 }
    }

    private func look() {
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0 else { continue }
            modes.withLock { $0[name] = ($0[name] ?? 0) | (info.st_mode & 0o777) }
        }
    }
}

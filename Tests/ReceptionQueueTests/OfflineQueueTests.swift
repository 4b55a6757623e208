import Foundation
import GRDB
import ReceptionCore
import ReceptionQueue
import ReceptionTestSupport
import Synchronization
import Testing

/// An engine that can be switched off (every call is `BackendError.unreachable`), records the
/// task ids it received, refuses a reused id as the real Loop Symphony does (a plain 500), and
/// with `lookup` honours `mayAlreadyExist` by following the task it already has.
final class FlakyEngine: Backend, Sendable {
    let online = Mutex(false)
    let lookup: Bool
    let endpoint: String?
    private let log = Mutex<(started: [String], lookedUp: [String])>(([], []))

    init(lookup: Bool, endpoint: String? = nil) {
        self.lookup = lookup
        self.endpoint = endpoint
    }

    var descriptor: BackendDescriptor {
        BackendDescriptor(name: "engine", summary: "test", capabilities: lookup ? [.taskLookup] : [], endpoint: endpoint)
    }

    /// Task ids the engine started, in order (a duplicate would show twice).
    var started: [String] { log.withLock { $0.started } }
    var lookedUp: [String] { log.withLock { $0.lookedUp } }

    func submit(_ request: ReceptionRequest) -> BackendEventStream {
        let isOnline = online.withLock { $0 }
        let lookup = lookup
        return BackendEventStream { continuation in
            guard isOnline else {
                continuation.finish(throwing: BackendError.unreachable(url: "http://127.0.0.1:9/task", reason: "connection refused"))
                return
            }
            let known = self.log.withLock { $0.started.contains(request.id) }
            if known && lookup && request.mayAlreadyExist {
                self.log.withLock { $0.lookedUp.append(request.id) }
            } else if known {
                continuation.finish(throwing: BackendError.http(status: 500, detail: "Internal Server Error"))
                return
            } else {
                self.log.withLock { $0.started.append(request.id) }
            }
            continuation.yield(.accepted(taskID: request.id, status: .pending))
            continuation.yield(.result(BackendResult(taskID: request.id, outcome: .complete, text: "answer to \(request.text)", confidence: 1)))
            continuation.finish()
        }
    }
}

func temporaryQueuePath() -> String {
    let directory = Scratch.root.appendingPathComponent("reception-queue-\(UUID().uuidString)")
    return directory.appendingPathComponent("state/queue.sqlite").path
}

/// All events of one exchange through [queue middleware] → engine.
func run(_ pipeline: Pipeline, _ request: ReceptionRequest, context: ReceptionContext = ReceptionContext()) async throws -> [BackendEvent] {
    var events: [BackendEvent] = []
    for try await event in try await pipeline.send(request, context: context).events { events.append(event.event) }
    return events
}

/// Sends every queued entry of the engine, oldest first, as the REPL does; stops at the first
/// that is not delivered.
func flush(_ queue: OfflineQueue, _ pipeline: Pipeline) async throws -> [[BackendEvent]] {
    var all: [[BackendEvent]] = []
    for entry in try queue.entries(backend: "engine") {
        let events = try await run(pipeline, entry.request, context: OfflineQueueMiddleware.replayContext(for: entry))
        all.append(events)
        if case .queued? = events.last { break }
    }
    return all
}

@Suite("Offline queue")
struct OfflineQueueTests {
    @Test func anUnreachableBackendQueuesDurablyAndSaysSo() async throws {
        let path = temporaryQueuePath()
        let engine = FlakyEngine(lookup: true)
        do {
            let queue = try OfflineQueue(path: path)
            let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
            let first = try await run(pipeline, ReceptionRequest(text: "one"))
            let second = try await run(pipeline, ReceptionRequest(text: "two"))
            guard case .queued(let notice)? = first.last, case .queued(let later)? = second.last else {
                Issue.record("not queued: \(first) \(second)"); return
            }
            #expect(first.count == 1)
            #expect(notice.waiting == 1 && later.waiting == 2)
            #expect(later.message == "The backend is unreachable; your message is queued (2 waiting) and will be sent when it answers.")
        }
        // Reopened (a new process): both are there, in order, for the same backend.
        let reopened = try OfflineQueue(path: path)
        #expect(try reopened.entries().map(\.request.text) == ["one", "two"])
        #expect(try reopened.entries().allSatisfy { $0.backend == "engine" && $0.state == .queued })
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((directory[.posixPermissions] as? Int) == 0o700)
        #expect(engine.started.isEmpty)
    }

    @Test func aQueueThatNeverHeldAMessageLeavesNoFileAndOpensNoDatabase() async throws {
        let path = temporaryQueuePath()
        let queue = try OfflineQueue(path: path)
        // Everything a session does with an empty queue: list, count, drop, look up.
        #expect(try queue.entries().isEmpty)
        #expect(try queue.count(backend: "engine") == 0)
        #expect(try queue.entry("nothing") == nil)
        #expect(try queue.remove("nothing") == false)
        #expect(try queue.removeAll() == 0)
        #expect(try queue.claim("nothing") == nil)
        #expect(!FileManager.default.fileExists(atPath: path), "no file until something is queued")
        // A backend answering normally never touches the queue either.
        let engine = FlakyEngine(lookup: true)
        engine.online.withLock { $0 = true }
        let answered = try await run(Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine),
                                     ReceptionRequest(text: "hello"))
        #expect({ if case .result? = answered.last { true } else { false } }())
        #expect(!FileManager.default.fileExists(atPath: path))
        // The first message to queue creates it, owner-only, and a second instance sees it.
        try queue.enqueue(ReceptionRequest(text: "later"), backend: "engine")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try OfflineQueue(path: path).entries().map(\.request.text) == ["later"])
    }

    @Test func aQueueCreatedByAnotherProcessAfterStartIsSeen() throws {
        let path = temporaryQueuePath()
        let early = try OfflineQueue(path: path)
        #expect(try early.entries().isEmpty)
        try OfflineQueue(path: path).enqueue(ReceptionRequest(text: "from the other REPL"), backend: "engine")
        #expect(try early.entries().map(\.request.text) == ["from the other REPL"])
    }

    @Test func theQueueFlushesInOrderEachTaskExactlyOnce() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        let engine = FlakyEngine(lookup: true)
        let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
        var ids: [String] = []
        for text in ["one", "two", "three"] {
            let request = ReceptionRequest(text: text)
            ids.append(request.id)
            _ = try await run(pipeline, request)
        }
        engine.online.withLock { $0 = true }
        let answers = try await flush(queue, pipeline)
        #expect(answers.count == 3)
        #expect(answers.allSatisfy { if case .result? = $0.last { true } else { false } })
        #expect(engine.started == ids, "in order, once each")
        #expect(try queue.count() == 0)
        // A second flush has nothing to send.
        #expect(try await flush(queue, pipeline).isEmpty)
        #expect(engine.started == ids)
    }

    @Test func stillUnreachableKeepsTheEntryAndStopsTheFlush() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        let engine = FlakyEngine(lookup: true)
        let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
        _ = try await run(pipeline, ReceptionRequest(text: "one"))
        _ = try await run(pipeline, ReceptionRequest(text: "two"))
        let answers = try await flush(queue, pipeline)
        #expect(answers.count == 1, "the flush stops at the first that is not delivered")
        guard case .queued(let notice)? = answers.first?.last else { Issue.record("\(answers)"); return }
        #expect(notice.waiting == 2)
        let entries = try queue.entries()
        #expect(entries.map(\.state) == [.queued, .queued])
        #expect(entries.first?.attempts == 1 && entries.first?.lastError?.contains("connection refused") == true)
    }

    @Test func aCrashAfterTheEngineGotTheTaskDoesNotDuplicateIt() async throws {
        // The window: the entry was claimed and sent, the engine started the task, and the
        // process died before the entry was removed. The next session sends it with
        // `mayAlreadyExist`: the engine follows the task it has instead of starting another.
        let path = temporaryQueuePath()
        let engine = FlakyEngine(lookup: true)
        let request = ReceptionRequest(text: "one")
        do {
            let queue = try OfflineQueue(path: path)
            let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
            _ = try await run(pipeline, request)
            engine.online.withLock { $0 = true }
            // What the dead session did before `kill -9`: claim, and the engine got the task.
            _ = try queue.claim(request.id, pid: 999_999_999)
            for try await _ in engine.submit(request) {}
        }
        let queue = try OfflineQueue(path: path)
        #expect(try queue.entries().first?.state == .sending)
        let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
        let answers = try await flush(queue, pipeline)
        guard case .result? = answers.first?.last else { Issue.record("\(answers)"); return }
        #expect(engine.started == [request.id], "the engine started it once")
        #expect(engine.lookedUp == [request.id], "the second delivery looked the task up")
        #expect(try queue.count() == 0)
    }

    @Test func anEngineThatCannotCheckIsNotSentAnUncertainEntryUnlessForced() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        let engine = FlakyEngine(lookup: false)
        let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
        let request = ReceptionRequest(text: "one")
        _ = try await run(pipeline, request)
        engine.online.withLock { $0 = true }
        _ = try queue.claim(request.id, pid: 999_999_999)  // a session died while sending it
        let held = try await flush(queue, pipeline)
        guard case .queued(let notice)? = held.first?.last else { Issue.record("\(held)"); return }
        #expect(notice.message.contains("/queue resend"))
        #expect(engine.started.isEmpty)
        let entry = try #require(try queue.entries().first)
        let forced = try await run(pipeline, entry.request, context: OfflineQueueMiddleware.replayContext(for: entry, force: true))
        guard case .result? = forced.last else { Issue.record("\(forced)"); return }
        #expect(engine.started == [request.id])
        #expect(try queue.count() == 0)
    }

    @Test func anEntryBeingSentByAnotherLivingSessionIsLeftToIt() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        let engine = FlakyEngine(lookup: true)
        let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
        let request = ReceptionRequest(text: "one")
        _ = try await run(pipeline, request)
        engine.online.withLock { $0 = true }
        _ = try queue.claim(request.id, pid: getppid())  // a living process has it
        let answers = try await flush(queue, pipeline)
        guard case .queued? = answers.first?.last else { Issue.record("\(answers)"); return }
        #expect(engine.started.isEmpty)
    }

    /// Leaving while a queued message is delivered stops following it; the engine keeps the
    /// task, and the entry stays for the next session to follow. A backend stopped that way
    /// ends its stream with a cancelled failure, which can still come through after the
    /// session went away: it is not the engine's answer, and must not take the entry away.
    @Test func aDeliveryStoppedByLeavingKeepsTheEntryThoughTheBackendSaysCancelled() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        let request = ReceptionRequest(text: "slow research, delivered when the session left")
        try queue.enqueue(request, backend: "engine")
        let entry = try #require(try queue.entries().first)
        var context = OfflineQueueMiddleware.replayContext(for: entry)
        context.backend = BackendDescriptor(name: "engine", summary: "test", capabilities: [.taskLookup])
        // The backend's stream: accepted, then (as every backend does when it is stopped) a
        // cancelled failure, yielded while the stop is under way.
        let (upstream, continuation) = ResponseStream.makeStream()
        continuation.onTermination = { reason in
            guard case .cancelled = reason else { return }
            continuation.yield(ResponseEvent(.failure(TaskFailure(taskID: request.id, message: "Task cancelled", cancelled: true))))
        }
        continuation.yield(ResponseEvent(.accepted(taskID: request.id, status: .running)))
        let exchange = try await OfflineQueueMiddleware(queue: queue).handle(request, context: context) { sent, _ in
            Exchange(request: sent, events: upstream)
        }
        let accepted = AsyncStream<Void>.makeStream()
        let session = Task {
            for try await event in exchange.events {
                if case .accepted = event.event { accepted.continuation.yield() }
            }
        }
        for await _ in accepted.stream { break }
        session.cancel()  // the session leaves
        _ = await session.result
        // The middleware settles the entry after the session went: released, or taken away.
        let deadline = ContinuousClock.now + .seconds(20)
        var settled: OfflineQueue.Entry?? = nil
        while ContinuousClock.now < deadline {
            let now = try queue.entry(request.id)
            if now == nil || now?.state == .queued { settled = .some(now); break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let outcome = try #require(settled, "the entry was neither released nor removed")
        let kept = try #require(outcome, "the entry was taken away as if the engine had answered")
        #expect(kept.state == .queued && kept.lastError?.contains("stopped before the answer came") == true, "\(kept)")
    }

    @Test func aHeldMessageIsQueuedBehindTheOthersWithoutTryingTheBackend() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        let engine = FlakyEngine(lookup: true)
        engine.online.withLock { $0 = true }  // it would answer, but older messages wait
        let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
        try queue.enqueue(ReceptionRequest(id: "older", text: "older"), backend: "engine")
        let events = try await run(pipeline, ReceptionRequest(id: "newer", text: "newer"),
                                   context: ReceptionContext(values: [OfflineQueueMiddleware.holdKey: "1"]))
        guard case .queued(let notice)? = events.last else { Issue.record("\(events)"); return }
        #expect(notice.waiting == 2)
        #expect(engine.started.isEmpty)
        #expect(try queue.entries().map(\.id) == ["older", "newer"])
    }

    @Test func entriesAreDroppedAndBelongToTheirBackend() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        try queue.enqueue(ReceptionRequest(id: "a", text: "one"), backend: "engine")
        try queue.enqueue(ReceptionRequest(id: "b", text: "two"), backend: "other")
        try queue.enqueue(ReceptionRequest(id: "c", text: "three"), backend: "engine")
        #expect(try queue.entries(backend: "engine").map(\.id) == ["a", "c"])
        #expect(try queue.remove("a"))
        #expect(try !queue.remove("a"))
        #expect(try queue.entries().map(\.id) == ["b", "c"])
        // A queued entry is never sent to another backend.
        let engine = FlakyEngine(lookup: true)
        engine.online.withLock { $0 = true }
        let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: engine)
        let other = try #require(try queue.entry("b"))
        await #expect(throws: OfflineQueueError.self) {
            _ = try await run(pipeline, other.request, context: OfflineQueueMiddleware.replayContext(for: other))
        }
        #expect(engine.started.isEmpty)
        #expect(try queue.removeAll() == 2)
    }

    /// A connection lost mid-answer reached the server, which may have done the work: sent
    /// again later, it could be done twice.
    @Test func onlyAnUnreachableServerIsQueuedNotATimeoutARefusalOrALostAnswer() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        for error in [BackendError.timedOut(url: "u", reason: "slow"), .http(status: 500, detail: "boom"), .connectionLost(url: "u")] {
            let backend = FailingBackend(error: error)
            let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: backend)
            await #expect(throws: BackendError.self) { _ = try await run(pipeline, ReceptionRequest(text: "x")) }
        }
        #expect(try queue.count() == 0)
    }

    @Test func aBrokenConnectionAfterTheEngineAcceptedIsNotQueued() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        let backend = FailingBackend(error: .unreachable(url: "u", reason: "reset"), acceptFirst: true)
        let pipeline = Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: backend)
        await #expect(throws: BackendError.self) { _ = try await run(pipeline, ReceptionRequest(text: "x")) }
        #expect(try queue.count() == 0)
    }

    @Test func anEntryIsOnlySentToTheServerItWasWrittenFor() async throws {
        let queue = try OfflineQueue(path: temporaryQueuePath())
        let first = FlakyEngine(lookup: true, endpoint: "http://first.example:8765/")
        _ = try await run(Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: first),
                          ReceptionRequest(id: "q1", text: "for the first server"))
        let entry = try #require(try queue.entry("q1"))
        #expect(entry.destination == "http://first.example:8765", "one spelling per server")

        // The same profile name, pointed at another server since: it does not get the message.
        let second = FlakyEngine(lookup: true, endpoint: "http://second.example:8765")
        second.online.withLock { $0 = true }
        let error = await #expect(throws: OfflineQueueError.self) {
            _ = try await run(Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: second), entry.request,
                              context: OfflineQueueMiddleware.replayContext(for: entry))
        }
        #expect(String(describing: error).contains("queued for engine at http://first.example:8765, and engine now points at http://second.example:8765"),
                "\(String(describing: error))")
        #expect(second.started.isEmpty)
        #expect(try queue.entry("q1")?.state == .queued, "still waiting, untouched")

        // Back at its own server, it is delivered.
        first.online.withLock { $0 = true }
        _ = try await run(Pipeline(middleware: [OfflineQueueMiddleware(queue: queue)], backend: first), entry.request,
                          context: OfflineQueueMiddleware.replayContext(for: entry))
        #expect(first.started == ["q1"])
        #expect(try queue.entry("q1") == nil)
    }

    @Test func aQueueFileFromBeforeServersWereRecordedStillOpensAndFollowsTheName() throws {
        let path = temporaryQueuePath()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // The first schema, as sessions before this one wrote it, with one waiting message.
        let old = try DatabaseQueue(path: path)
        let stored = #"{"attachments":[],"conversation":[],"extensions":{},"id":"old","sessionID":"s","text":"written last week","trustLevel":1}"#
        try old.write { db in
            try db.execute(sql: """
                CREATE TABLE queue_entries (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, backend TEXT NOT NULL,
                    kind TEXT NOT NULL DEFAULT 'task', request TEXT NOT NULL, created_at REAL NOT NULL,
                    state TEXT NOT NULL DEFAULT 'queued', owner_pid INTEGER, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT)
                """)
            try db.execute(sql: "INSERT INTO queue_entries (id, backend, request, created_at) VALUES ('old', 'engine', ?, 0)", arguments: [stored])
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        try old.close()
        let queue = try OfflineQueue(path: path)
        #expect(queue.problem == nil)
        let entry = try #require(try queue.entry("old"))
        #expect(entry.request.text == "written last week")
        #expect(entry.destination == nil)
        #expect(OfflineQueue.belongs(entry, to: "engine", at: "http://anywhere:1"), "as before: by name")
        try queue.enqueue(ReceptionRequest(id: "new", text: "today"), backend: "engine", destination: "http://here:1")
        #expect(try queue.entry("new")?.destination == "http://here:1")
    }

    /// Two damaged files in the same second: both kept, under two names, and the queue opens.
    @Test func aSecondDamagedFileInTheSameSecondIsKeptToo() throws {
        let path = temporaryQueuePath()
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for byte: UInt8 in [0x41, 0x42] {
            try Data(repeating: byte, count: 4096).write(to: URL(fileURLWithPath: path))
            let queue = try OfflineQueue(path: path)
            #expect(queue.problem != nil)
            #expect(try queue.count() == 0)
        }
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("queue.sqlite.corrupt-") }.sorted()
        #expect(aside.count == 2, "\(aside)")
        let kept = try aside.map { try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0)) }
        #expect(Set(kept) == [Data(repeating: 0x41, count: 4096), Data(repeating: 0x42, count: 4096)])
    }

    /// A link at the queue's path was followed: the file it pointed to was
    /// made 0600 (as root, `/dev/zero`) and SQLite wrote its journal beside it. The link is now
    /// refused, and what it points to is left as it was.
    @Test func aSymbolicLinkAtTheQueuePathIsRefusedAndItsTargetLeftAlone() throws {
        let path = temporaryQueuePath()
        let directory = (path as NSString).deletingLastPathComponent
        let elsewhere = (directory as NSString).deletingLastPathComponent + "/elsewhere"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: (elsewhere as NSString).deletingLastPathComponent) }
        let document = elsewhere + "/doc.txt"
        try "someone's document".write(toFile: document, atomically: false, encoding: .utf8)
        #expect(chmod(document, 0o644) == 0 && symlink(document, path) == 0)
        let problem: String
        do {
            let queue = try OfflineQueue(path: path)
            try queue.enqueue(ReceptionRequest(text: "later"), backend: "engine")
            problem = "queued through the link"
        } catch {
            problem = PlainFile.reason(of: error)
        }
        #expect(problem == "it is a symbolic link, which is not followed for private data (the file it points to would be changed); remove the link")
        var info = stat()
        #expect(lstat(document, &info) == 0 && info.st_mode & 0o777 == 0o644, "the target keeps its mode")
        #expect(try String(contentsOfFile: document, encoding: .utf8) == "someone's document")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere) == ["doc.txt"], "no journal beside the target")
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is not replaced either")
    }

    @Test func aDamagedFileIsKeptAsideNotDeleted() throws {
        let path = temporaryQueuePath()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x41, count: 4096)
        try garbage.write(to: URL(fileURLWithPath: path))
        let queue = try OfflineQueue(path: path)
        let problem = try #require(queue.problem)
        #expect(problem.contains(path))
        let directory = (path as NSString).deletingLastPathComponent
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("queue.sqlite.corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + aside[0])) == garbage)
        #expect(try queue.count() == 0)
    }
}

struct FailingBackend: Backend {
    let error: BackendError
    var acceptFirst = false
    var descriptor: BackendDescriptor { BackendDescriptor(name: "engine", summary: "fails", capabilities: [.taskLookup]) }
    func submit(_ request: ReceptionRequest) -> BackendEventStream {
        BackendEventStream { continuation in
            if acceptFirst { continuation.yield(.accepted(taskID: request.id, status: .pending)) }
            continuation.finish(throwing: error)
        }
    }
}

import Foundation
import Synchronization
import Testing

/// One thread, outside Swift's cooperative pool, on which the CPU-bound tests run one at a time.
///
/// Swift Testing runs every test as a task on the cooperative pool, which has as many threads
/// as the machine has cores: two here. A synchronous test that computes for seconds (a corpus
/// evaluation, a fuzz loop, an unoptimised debug build of either) holds one of them for that
/// long, and two such tests hold the pool: every network test's timers, reads and server
/// handlers then wait behind them, and tests with a deadline fail on a loaded machine. On the
/// lane they share the cores with the pool through the kernel's scheduler instead, and queue
/// behind each other rather than behind the network tests.
///
/// The test still runs as its own task (a task executor preference moves where its code runs,
/// not which task it is), so `#expect` and `#require` record issues against it as anywhere else.
public final class CPULane: TaskExecutor, @unchecked Sendable {
    public static let shared = CPULane()

    /// Jobs waiting for the thread; guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private let condition = NSCondition()

    private init() {
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "reception-test-cpu-lane"
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        laneThread.withLock { $0 = pthread_self() }
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private let laneThread = Mutex<pthread_t?>(nil)

    /// Whether the caller is running on the lane's thread.
    public static var isCurrent: Bool { shared.laneThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }
}

/// `.onTheCPULane`: the test (or every test of the suite) runs on `CPULane`.
public struct CPULaneTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A suite's own scope holds no test code; only each test case moves.
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(CPULane.shared) { try await function() }
    }
}

extension Trait where Self == CPULaneTrait {
    /// Runs the test, or every test of a suite, on `CPULane`: for tests that compute for a long
    /// time without waiting on anything, never for tests that wait on a server or a process.
    public static var onTheCPULane: Self { CPULaneTrait() }
}

/// Runs `work` on a thread of its own and waits for it without holding a pool thread: for a
/// blocking call (a read from a pipe, waiting for a process) inside an async test. Unlike the
/// lane, nothing queues behind it. `work` runs outside the test's task: compute there, assert
/// after it returns.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// `offThePool` for work that cannot fail.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}

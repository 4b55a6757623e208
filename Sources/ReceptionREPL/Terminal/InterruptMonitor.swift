import Dispatch
import Foundation
import Synchronization

/// Owns SIGINT (and SIGWINCH) for the process and routes each signal to whoever is
/// listening now: the line reader while at the prompt, the running task otherwise.
///
/// The default action (killing the process) is disabled for the REPL's lifetime, so a
/// Ctrl-C can never lose the session.
public final class InterruptMonitor: Sendable {
    public static let shared = InterruptMonitor()

    private let handler = Mutex<(@Sendable () -> Void)?>(nil)
    private let resizeHandler = Mutex<(@Sendable () -> Void)?>(nil)
    private let sources = Mutex<[DispatchSourceSignal]>([])

    private init() {}

    /// Starts listening. Idempotent.
    public func install() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            signal(SIGINT, SIG_IGN)
            let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            interrupt.setEventHandler { [weak self] in self?.handler.withLock { $0 }?() }
            interrupt.resume()
            let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
            resize.setEventHandler { [weak self] in self?.resizeHandler.withLock { $0 }?() }
            resize.resume()
            sources = [interrupt, resize]
        }
    }

    public typealias Handler = @Sendable () -> Void

    /// Makes `onInterrupt` receive Ctrl-C until `restore` is called with the returned value.
    public func push(_ onInterrupt: @escaping Handler) -> Handler? {
        handler.withLock { current in
            defer { current = onInterrupt }
            return current
        }
    }

    /// Gives Ctrl-C back to the listener that `push` replaced.
    public func restore(_ previous: Handler?) {
        handler.withLock { $0 = previous }
    }

    func setResizeHandler(_ handler: (@Sendable () -> Void)?) {
        resizeHandler.withLock { $0 = handler }
    }
}

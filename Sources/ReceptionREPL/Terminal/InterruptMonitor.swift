import Dispatch
import Foundation
import Synchronization

/// Owns SIGINT (and SIGWINCH) for the process and routes each signal to whoever is
/// listening now: the line reader while at the prompt, the running task otherwise.
///
/// The default action (killing the process) is disabled for the REPL's lifetime, so a
/// Ctrl-C can never lose the session.
///
/// SIGTERM and SIGHUP (a `kill`, a closed terminal window) do not kill it either: they are
/// recorded in `terminationSignal` and delivered like a Ctrl-C, so whatever runs stops the
/// way it would for Ctrl-C, and the REPL then leaves as it does on Ctrl-D: readline gives the
/// terminal back its settings, the backend's shutdown runs (a room is deregistered), and the
/// exit status is 128 + the signal. A second one exits at once, with the terminal restored.
public final class InterruptMonitor: Sendable {
    public static let shared = InterruptMonitor()

    /// Listeners, newest last: Ctrl-C goes to the newest. A stack rather than one slot, so
    /// that two listeners that overlap without nesting (a line read while queued messages are
    /// delivered) can each leave without putting back a listener that already left.
    private let listeners = Mutex<(next: UInt64, stack: [(id: UInt64, handler: Handler)])>((0, []))
    private let resizeHandler = Mutex<(@Sendable () -> Void)?>(nil)
    private let continueHandler = Mutex<(@Sendable () -> Void)?>(nil)
    private let sources = Mutex<[DispatchSourceSignal]>([])
    private let termination = Mutex<Int32?>(nil)
    /// The terminal's settings when the REPL started, for a hard exit on a second signal.
    private let originalTerminal = Mutex<termios?>(nil)

    private init() {}

    /// SIGTERM or SIGHUP, once one arrived: the REPL is leaving.
    public var terminationSignal: Int32? { termination.withLock { $0 } }

    /// Starts listening. Idempotent.
    public func install() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            if isatty(STDIN_FILENO) == 1 {
                var settings = termios()
                if tcgetattr(STDIN_FILENO, &settings) == 0 { originalTerminal.withLock { $0 = settings } }
            }
            signal(SIGINT, SIG_IGN)
            let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            interrupt.setEventHandler { [weak self] in self?.current?() }
            interrupt.resume()
            let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
            resize.setEventHandler { [weak self] in self?.resizeHandler.withLock { $0 }?() }
            resize.resume()
            // Ctrl-Z stops the process as it always does; `fg` sends SIGCONT, after the shell
            // has put the terminal back to its own settings: the line reader sets up its own
            // again and redraws the prompt (readline went on believing the terminal raw, and
            // every key was echoed twice).
            let resumed = DispatchSource.makeSignalSource(signal: SIGCONT, queue: .global())
            resumed.setEventHandler { [weak self] in self?.continueHandler.withLock { $0 }?() }
            resumed.resume()
            sources = [interrupt, resize, resumed]
            for number in [SIGTERM, SIGHUP] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in self?.terminate(number) }
                source.resume()
                sources.append(source)
            }
        }
    }

    private func terminate(_ number: Int32) {
        let first = termination.withLock { current in
            guard current == nil else { return false }
            current = number
            return true
        }
        guard first else {
            // Asked twice: whatever is still running (a slow shutdown) is not waited for.
            if var settings = originalTerminal.withLock({ $0 }) { tcsetattr(STDIN_FILENO, TCSANOW, &settings) }
            _exit(128 + number)
        }
        // Whatever runs stops, and whatever waits for input stops waiting: every listener hears it.
        for handler in listeners.withLock({ $0.stack.reversed().map(\.handler) }) { handler() }
    }

    public typealias Handler = @Sendable () -> Void

    /// Who hears Ctrl-C now.
    private var current: Handler? { listeners.withLock { $0.stack.last?.handler } }

    /// What `push` returns: hand it to `restore` when the listener leaves.
    public struct Registration: Sendable { fileprivate let id: UInt64 }

    /// Makes `onInterrupt` receive Ctrl-C until `restore` is called with the returned value.
    public func push(_ onInterrupt: @escaping Handler) -> Registration {
        listeners.withLock { listeners in
            listeners.next += 1
            listeners.stack.append((listeners.next, onInterrupt))
            return Registration(id: listeners.next)
        }
    }

    /// Removes the listener `push` added; Ctrl-C goes to the newest one still listening.
    public func restore(_ registration: Registration) {
        listeners.withLock { $0.stack.removeAll { $0.id == registration.id } }
    }

    func setResizeHandler(_ handler: (@Sendable () -> Void)?) {
        resizeHandler.withLock { $0 = handler }
    }

    func setContinueHandler(_ handler: (@Sendable () -> Void)?) {
        continueHandler.withLock { $0 = handler }
    }
}

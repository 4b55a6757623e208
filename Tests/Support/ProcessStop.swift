import Foundation

extension Process {
    /// Stops a process a test started (a reference server, a REPL): SIGTERM, then SIGKILL if
    /// it has not gone after `patience`, then reaps it.
    ///
    /// `terminate(); waitUntilExit()` waits for ever on a server that does not act on its
    /// SIGTERM, and Foundation's wait spins a core while it does: once, two such waits held
    /// both cores of the machine and the suite never ended. A server that ignores the signal
    /// is killed, and the run goes on.
    public func stop(patience: Duration = .seconds(10)) {
        if isRunning {
            terminate()
            let deadline = ContinuousClock.now + patience
            while isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if isRunning { kill(processIdentifier, SIGKILL) }
        }
        waitUntilExit()
    }
}

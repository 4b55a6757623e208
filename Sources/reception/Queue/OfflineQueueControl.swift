import Foundation
import ReceptionCore
import ReceptionQueue
import ReceptionREPL

/// The REPL's view of `ReceptionQueue`'s offline queue (the REPL does not depend on it).
struct OfflineQueueControl: QueueControl {
    let queue: OfflineQueue

    /// `$XDG_STATE_HOME/reception/queue.sqlite`.
    static func path(environment: PluginEnvironment) -> String {
        environment.stateDirectory + "/queue.sqlite"
    }

    func items() throws -> [QueuedItem] {
        try queue.entries().map { entry in
            QueuedItem(id: entry.id, backend: entry.backend, destination: entry.destination, createdAt: entry.createdAt, request: entry.request,
                       sending: entry.state == .sending,
                       sentByAnotherSession: entry.ownerPID.map { $0 != getpid() && OfflineQueue.isAlive($0) } == true,
                       lastError: entry.lastError)
        }
    }

    /// Only this backend's rows are read (none, and no file opened, in most sessions).
    func hasItems(for backend: BackendDescriptor) throws -> Bool {
        try queue.entries(backend: backend.name).contains { OfflineQueue.belongs($0, to: backend.name, at: backend.endpoint) }
    }

    func drop(_ ids: [String]) throws -> Int {
        try ids.reduce(0) { $0 + (try queue.remove($1) ? 1 : 0) }
    }

    func context(forSending item: QueuedItem, force: Bool) -> ReceptionContext {
        var values = [OfflineQueueMiddleware.entryKey: item.id]
        if force { values[OfflineQueueMiddleware.forceKey] = "1" }
        return ReceptionContext(values: values)
    }

    func holding(_ context: ReceptionContext, behindDelivery: Bool) -> ReceptionContext {
        var context = context
        context.values[OfflineQueueMiddleware.holdKey] = behindDelivery ? OfflineQueueMiddleware.holdBehind : OfflineQueueMiddleware.holdUnreachable
        return context
    }

    var problem: String? { queue.problem }
}

import ReceptionCore

extension TaskService {
    /// The full id for what a person typed: the task tables show ids cut to 8 characters, so a
    /// shorter id is looked up among the server's active and recent tasks and must name one.
    /// A whole UUID (the server's ids are UUIDs) is taken as it is.
    public func fullID(_ typed: String) async throws -> String {
        guard ShortID.needsLookup(typed) else { return typed }
        async let running = active()
        async let finished = recent(limit: 200)
        return try ShortID.resolve(typed, among: (try await running + finished).map(\.taskID),
            none: { BackendError.invalidTaskState(taskID: typed, reason: "no active or recent task id starts with it; /tasks recent lists them.") },
            several: { BackendError.invalidTaskState(taskID: typed, reason: "it starts \($0.count) task ids (\($0.joined(separator: ", "))); type more of it.") })
    }
}

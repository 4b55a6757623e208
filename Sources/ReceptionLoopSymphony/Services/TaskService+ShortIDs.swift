import ReceptionCore

extension TaskService {
    /// The full id for what a person typed: the task tables show ids cut to 8 characters, so a
    /// shorter id is looked up among the server's active and recent tasks and must name one.
    /// A whole UUID (the server's ids are UUIDs) is taken as it is.
    public func fullID(_ typed: String) async throws -> String {
        guard typed.count < 36 else { return typed }
        let known = try await active() + (try await recent(limit: 200))
        let matching = Set(known.map(\.taskID).filter { $0.lowercased().hasPrefix(typed.lowercased()) })
        switch matching.count {
        case 1: return matching.first!
        case 0:
            throw BackendError.invalidTaskState(taskID: typed, reason: "no active or recent task id starts with it; /tasks recent lists them.")
        default:
            throw BackendError.invalidTaskState(taskID: typed, reason: "it starts \(matching.count) task ids (\(matching.sorted().joined(separator: ", "))); type more of it.")
        }
    }
}

/// Runs a server's `run(onReady:)` in a task and returns once it listens: the bound port
/// and the task (cancel it to stop the server). A server that fails to start throws here.
func startInBackground(_ run: @escaping @Sendable (_ onReady: @escaping @Sendable (Int) async -> Void) async throws -> Void)
    async throws -> (port: Int, task: Task<Void, any Error>) {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let task = Task {
        defer { continuation.finish() }
        try await run { port in continuation.yield(port) }
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else {
        _ = try await task.value
        throw CancellationError()
    }
    return (port, task)
}

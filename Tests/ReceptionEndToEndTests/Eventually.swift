import Testing

/// Waits until `condition` holds, checking every 20 ms; a test that waits for what must come
/// (a request the server saw, a connection closed) instead of sleeping through the time it
/// should take. `timeout` only keeps a broken feature from hanging the suite.
/// `seen` says what there was instead, when it times out.
func eventually(_ what: String, timeout: Duration = .seconds(120), seen: () -> String = { "" },
                sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("Timed out waiting for \(what). \(seen())", sourceLocation: sourceLocation)
    throw HarnessError("timed out waiting for \(what)")
}

import ReceptionCore

// Reading a backend's events in tests, shared by every adapter's test target.

/// Every event of a stream, in order, until it ends (rethrows what ends it): a backend's
/// `BackendEventStream`, or a pipeline's `ResponseStream` (`exchange.events`, whose events
/// carry what middleware made of them in `display`).
public func collect<Element>(_ stream: AsyncThrowingStream<Element, any Error>) async throws -> [Element] {
    var events: [Element] = []
    for try await event in stream { events.append(event) }
    return events
}

/// The result among `events`, if one arrived.
public func result(in events: [BackendEvent]) -> BackendResult? {
    for case .result(let result) in events { return result }
    return nil
}

/// The failure among `events`, if one arrived.
public func failure(in events: [BackendEvent]) -> TaskFailure? {
    for case .failure(let failure) in events { return failure }
    return nil
}

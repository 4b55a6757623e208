/// The last `capacity` events of a watched worker, oldest first: what an hour of watching
/// keeps in memory is bounded by this, not by how much the worker did.
public struct CodexTimeline: Sendable, Hashable {
    public let capacity: Int
    private var ring: [CodexEvent] = []
    private var start = 0
    /// Events that were let go to keep within `capacity`.
    public private(set) var evicted = 0

    public init(capacity: Int = 500) {
        self.capacity = max(1, capacity)
        ring.reserveCapacity(min(self.capacity, 64))
    }

    public mutating func append(_ event: CodexEvent) {
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[start] = event
            start = (start + 1) % capacity
            evicted += 1
        }
    }

    public var count: Int { ring.count }

    /// Oldest first.
    public var events: [CodexEvent] { Array(ring[start...] + ring[..<start]) }

    public var last: CodexEvent? { ring.isEmpty ? nil : ring[(start + ring.count - 1) % ring.count] }
}

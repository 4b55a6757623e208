import Foundation
import Synchronization

/// The soul in use, shared between the personality middleware and whoever switches it.
public final class SoulStore: Sendable {
    private let soul: Mutex<Soul>

    public init(_ soul: Soul) {
        self.soul = Mutex(soul)
    }

    public var current: Soul {
        get { soul.withLock { $0 } }
        set { soul.withLock { $0 = newValue } }
    }
}

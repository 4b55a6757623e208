import Foundation

/// Settings of the reference Loop Symphony server.
public struct LoopSymphonyReferenceOptions: Sendable {
    /// An app registered on the server (the real server keeps these in its `apps` table).
    public struct App: Sendable, Hashable {
        public var apiKey: String
        public var id: String
        public var name: String
        public var isActive: Bool
        public init(apiKey: String, id: String = UUID().uuidString.lowercased(), name: String, isActive: Bool = true) {
            self.apiKey = apiKey; self.id = id; self.name = name; self.isActive = isActive
        }
    }

    /// Only loopback: the reference server is for tests and local trials.
    public var host: String
    /// 0 picks a free port; the bound port is reported when the server is ready.
    public var port: Int
    public var apps: [App]
    /// Silence after which an SSE stream gets `: keepalive` (30 s on the real server).
    public var keepaliveInterval: Duration
    /// Time one step of a task takes (an iteration, or the single pass of a note). "slow" queries take 10 steps per iteration.
    public var stepDelay: Duration
    /// Rooms go offline after this long without a heartbeat (120 s on the real server).
    public var roomOfflineAfter: Duration
    /// When false, `GET /task/{id}/stream` answers a text/plain 500 (tests the client's fallback to polling).
    public var streamingEnabled: Bool
    /// Seed the knowledge files with a few entries (the real server starts empty).
    public var seedKnowledge: Bool
    public var version: String

    public init(host: String = "127.0.0.1", port: Int = 0, apps: [App] = LoopSymphonyReferenceOptions.defaultApps,
                keepaliveInterval: Duration = .seconds(30), stepDelay: Duration = .milliseconds(150),
                roomOfflineAfter: Duration = .seconds(120), streamingEnabled: Bool = true, seedKnowledge: Bool = true,
                version: String = "0.1.0") {
        self.host = host; self.port = port; self.apps = apps; self.keepaliveInterval = keepaliveInterval
        self.stepDelay = stepDelay; self.roomOfflineAfter = roomOfflineAfter; self.streamingEnabled = streamingEnabled
        self.seedKnowledge = seedKnowledge; self.version = version
    }

    /// `dev-key` (active app "Reception dev") and `inactive-key` (a deactivated app).
    public static let defaultApps: [App] = [
        App(apiKey: "dev-key", id: "6f1c2a3e-0d4b-4a8e-9c71-3b5d2e8f4a10", name: "Reception dev"),
        App(apiKey: "inactive-key", id: "0a9e8d7c-6b5a-4f3e-8d2c-1b0a9f8e7d6c", name: "Retired app", isActive: false),
    ]
}

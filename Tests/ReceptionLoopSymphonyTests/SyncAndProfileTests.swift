import Foundation
import GRDB
import ReceptionConfiguration
import ReceptionCore
@testable import ReceptionLoopSymphony
import ReceptionReferenceServers
import Testing

@Suite struct SyncAndProfileTests {
    /// A link at the knowledge cache's path was followed (its target made
    /// 0600, a journal written beside it); it is refused, and the target left as it was.
    @Test func aSymbolicLinkAtTheKnowledgeCachePathIsRefused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = directory.appendingPathComponent("doc.txt").path, path = directory.appendingPathComponent("knowledge.sqlite").path
        try "someone's document".write(toFile: document, atomically: false, encoding: .utf8)
        #expect(chmod(document, 0o644) == 0 && symlink(document, path) == 0)
        do {
            _ = try KnowledgeCache(path: path)
            Issue.record("the cache was opened through the link")
        } catch {
            #expect("\(error)".hasPrefix("it is a symbolic link, which is not followed for private data"), "\(error)")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: document)[.posixPermissions] as? Int == 0o644)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["doc.txt", "knowledge.sqlite"], "no journal")
    }

    @Test func knowledgeDeltaSyncIntoSQLitePersistsServerVersionAcrossReopen() async throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("knowledge.sqlite").path
        try await withServer { _, client in
            let registration = RoomRegistration(roomID: "sync-room", roomName: "Sync", roomType: "cli", url: "http://127.0.0.1:1/")
            _ = try await client.rooms.register(registration)
            do {
                let cache = try KnowledgeCache(path: path)
                #expect(try cache.serverVersion() == nil)
                let presence = RoomPresence(client: client, registration: registration, cache: cache)
                let first = try await presence.beat()
                #expect(first.knowledgeUpdates?.serverVersion == 3 && first.knowledgeUpdates?.entries.count == 3)
                #expect(try cache.serverVersion() == 3 && cache.count() == 3)
                // Nothing new: `knowledge_updates` is null.
                #expect(try await presence.beat().knowledgeUpdates == nil)
                _ = try await client.knowledge.createEntry(KnowledgeEntryCreate(category: "patterns", title: "Mornings", content: "Asks about news at 7"))
                _ = try await client.knowledge.refresh()
                let delta = try #require(try await presence.beat().knowledgeUpdates)
                #expect(delta.entries.count == 2 && delta.removedIDs.isEmpty && delta.serverVersion == 5)
                #expect(try cache.count() == 5 && cache.search("news").first?.title == "Mornings")
                let doomed = try cache.entries(category: "patterns").first { $0.title == "Task outcomes" }?.id
                _ = try await client.knowledge.refresh()  // replaces the tracker entry: one removal, one addition
                let removal = try #require(try await presence.beat().knowledgeUpdates)
                #expect(removal.removedIDs == [doomed].compactMap { $0 } && removal.entries.count == 1)
                #expect(try cache.count() == 5 && cache.serverVersion() == 7)
                #expect(try cache.entries().contains { $0.id == doomed } == false)
                let sync = try await client.knowledge.syncStatus()
                #expect(sync.rooms.first?.roomID == "sync-room" && sync.rooms.first?.lastSyncedVersion == 7)
            }
            // Reopen: the version and the entries are still there.
            let reopened = try KnowledgeCache(path: path)
            #expect(try reopened.serverVersion() == 7 && reopened.count() == 5)
            #expect(try reopened.entries(category: "capabilities").map(\.title) == ["Quick answers", "Research"])
            #expect(try reopened.entries(category: "capabilities").last?.tagList == ["research", "web"])
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// An entry cached by an earlier session and since removed on the server (while no room
    /// of ours was there to be told) goes at the new room's first sync; later beats are deltas.
    @Test func aNewRoomsFirstSyncReplacesWhatAnEarlierSessionCached() async throws {
        let cache = try KnowledgeCache(path: ":memory:")
        let stale = KnowledgeDeltaEntry(id: "gone-since", category: "patterns", title: "Stale", content: "Removed while offline", version: 1)
        try cache.apply(KnowledgeUpdates(serverVersion: 9, entries: [stale], removedIDs: []))
        try await withServer { _, client in
            let presence = RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: cache)
            _ = try await client.rooms.register(presence.registration)
            // A manual beat racing the first one must not overtake it: whichever answer
            // holds everything has to be the one taken for everything.
            async let first = presence.beat()
            async let second = presence.beat()
            let answers = try await [first, second]
            #expect(answers.compactMap(\.knowledgeUpdates).map(\.entries.count) == [3])
            #expect(try cache.count() == 3 && cache.entries().contains { $0.id == "gone-since" } == false)
            // Later beats merge: something cached since stays while the server sends nothing.
            try cache.apply(KnowledgeUpdates(serverVersion: 3, entries: [stale], removedIDs: []))
            #expect(try await presence.beat().knowledgeUpdates == nil)
            #expect(try cache.count() == 4)
        }
        // The first sync of a new room on a server with no knowledge empties the cache.
        try await withServer(.fast(seedKnowledge: false)) { _, client in
            let presence = RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: cache)
            _ = try await client.rooms.register(presence.registration)
            #expect(try await presence.beat().knowledgeUpdates == nil)
            #expect(try cache.count() == 0)
        }
        // Every session's room id is new, even from the same process.
        #expect(RoomPresence.defaultRegistration().roomID != RoomPresence.defaultRegistration().roomID)
    }

    /// A beat waiting behind another (`/rooms beat` against the background loop) ends at
    /// once when cancelled, so leaving does not wait for the beat ahead; the gate still lets
    /// the next beat in.
    @Test(.timeLimit(.minutes(1))) func aBeatWaitingBehindAnotherIsCancelledAtOnce() async throws {
        let gate = HeartbeatGate()
        #expect(try await gate.enter())
        let waiter = Task { try await gate.enter() }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        // Ends while the beat ahead is still in flight (leave comes after): not a timing
        // measure, which a loaded machine would make flaky; without the fix it waits for ever.
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        await gate.leave(synced: true)
        // Not wedged: the gate is free, and the first sync is over.
        let next = Task { try await gate.enter() }
        #expect(try await next.value == false)
    }

    /// A cache written before the schema was versioned (GRDB's migrator, `user_version` 0)
    /// opens with its entries and version intact.
    @Test func aCacheFromTheEarlierSchemaKeepsItsEntries() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        do {
            let old = try DatabaseQueue(path: path)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.execute(sql: """
                    CREATE TABLE knowledge_entries (id TEXT PRIMARY KEY NOT NULL, category TEXT NOT NULL, title TEXT NOT NULL,
                        content TEXT NOT NULL, source TEXT, confidence DOUBLE, tags TEXT NOT NULL DEFAULT '[]',
                        version INTEGER NOT NULL, updated_at TEXT);
                    CREATE TABLE sync_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    INSERT INTO knowledge_entries (id, category, title, content, version) VALUES ('kept', 'patterns', 'Kept', 'Still here', 4);
                    INSERT INTO sync_state VALUES ('server_version', '4');
                    """)
            }
            try migrator.migrate(old)
        }
        let cache = try KnowledgeCache(path: path)
        #expect(try cache.serverVersion() == 4 && cache.entries().map(\.title) == ["Kept"])
        // And it opens again once versioned.
        #expect(try KnowledgeCache(path: path).count() == 1)
    }

    @Test func heartbeatNotSendingAVersionGetsNoKnowledgeKey() async throws {
        try await withServer { _, client in
            _ = try await client.rooms.register(RoomRegistration(roomID: "plain", roomName: "Plain", url: "http://127.0.0.1:1/"))
            let raw = try await client.transport.send(.POST, "/rooms/heartbeat", body: Data(#"{"room_id":"plain"}"#.utf8), auth: .none)
            #expect(String(decoding: raw.body, as: UTF8.self) == #"{"status":"ok","room_id":"plain"}"#)
            let withVersion = try await client.transport.send(.POST, "/rooms/heartbeat",
                                                              body: Data(#"{"room_id":"plain","last_knowledge_version":3}"#.utf8), auth: .none)
            #expect(String(decoding: withVersion.body, as: UTF8.self).contains("\"knowledge_updates\":{\"server_version\":3"))
        }
    }

    /// A room's presence with an in-memory knowledge cache, its events recorded.
    static func room(_ name: String, client: LoopSymphonyClient, interval: Duration) throws -> (RoomPresence, KnowledgeCache, EventLog) {
        let cache = try KnowledgeCache(path: ":memory:")
        let events = EventLog()
        let presence = RoomPresence(client: client, registration: RoomPresence.defaultRegistration(name: name), cache: cache,
                                    interval: interval) { events.append($0) }
        return (presence, cache, events)
    }

    /// The first beat's answer lost after the server sent it (or the request sent again by
    /// the transport): the server counts its push as delivered, and the next answer holds
    /// nothing. The first sync matches the server's list, so the cache holds the server's
    /// entries, and not those an earlier session left that the server no longer has.
    @Test func aFirstSyncWhoseAnswerWasLostStillBringsEverything() async throws {
        try await withServer { _, client in
            let (presence, cache, _) = try Self.room("Lost answer", client: client, interval: .seconds(60))
            try cache.apply(KnowledgeUpdates(serverVersion: 1, entries: [KnowledgeDeltaEntry(id: "gone", category: "patterns",
                                                                                             title: "Removed meanwhile", content: "", version: 1)],
                                             removedIDs: []))
            _ = try await client.rooms.register(presence.registration)
            // The answer that never arrived: the server sent everything and recorded it.
            let lost = try await client.rooms.heartbeat(RoomHeartbeat(roomID: presence.registration.roomID, status: "online",
                                                                      capabilities: nil, lastKnowledgeVersion: 0))
            #expect(lost.knowledgeUpdates?.entries.count == 3)
            let answer = try await presence.beat()
            #expect(answer.knowledgeUpdates?.entries.isEmpty ?? true, "the server sends nothing more")
            let titles = try cache.entries().map(\.title)
            #expect(titles.count == 3 && !titles.contains("Removed meanwhile"), "\(titles)")
        }
    }

    /// A server that removed the room still remembers what it sent it, so its answer once
    /// the room registers again holds only what is new: the cache keeps what it had (it was
    /// emptied, taken for everything the server has) and gains what was added meanwhile.
    @Test func aRoomTheServerForgotKeepsItsCacheAndGainsWhatWasAdded() async throws {
        try await withServer { _, client in
            let (presence, cache, events) = try Self.room("Forgotten", client: client, interval: .seconds(60))
            let registration = presence.registration
            _ = try await client.rooms.register(registration)
            try await presence.beat()
            #expect(try cache.count() == 3)
            _ = try await client.rooms.deregister(registration.roomID)
            _ = try await client.knowledge.createEntry(KnowledgeEntryCreate(category: "patterns", title: "Evenings", content: "Reads long answers after 9"))
            try await presence.beat()
            #expect(events.all.contains(.reregistered(roomID: registration.roomID)), "\(events.all)")
            let titles = try cache.entries().map(\.title)
            #expect(titles.count == 4 && titles.contains("Evenings"), "\(titles)")
        }
    }

    @Test func roomHeartbeatLoopRegistersBeatsAndDeregistersOnCancel() async throws {
        try await withServer { _, client in
            let (presence, cache, events) = try Self.room("Loop test", client: client, interval: .milliseconds(50))
            let registration = presence.registration
            let loop = Task { try await presence.run() }
            // Wait for a few beats.
            // Up to a minute: a loaded machine can take seconds over four round trips.
            for _ in 0..<3_000 where events.beats < 3 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(events.beats >= 3)
            #expect(try await client.rooms.list().rooms.contains { $0.roomID == registration.roomID })
            // The server forgetting the room makes the loop register again.
            _ = try await client.rooms.deregister(registration.roomID)
            for _ in 0..<3_000 where !events.all.contains(.reregistered(roomID: registration.roomID)) { try await Task.sleep(for: .milliseconds(20)) }
            #expect(events.all.contains(.reregistered(roomID: registration.roomID)))
            loop.cancel()
            try await loop.value
            #expect(events.all.first == .registered(roomID: registration.roomID))
            #expect(events.all.last == .deregistered(roomID: registration.roomID, status: "deregistered"))
            #expect(try await client.rooms.list().rooms.contains { $0.roomID == registration.roomID } == false)
            let cached = try cache.count()
            #expect(cached == 3, "\(cached) entries cached; events: \(events.all)")
        }
    }

    @Test func profilesFromXDGWithEnvironmentAndFileKeys() throws {
        let directory = try temporaryDirectory()
        let environment = PluginEnvironment.standard(["XDG_CONFIG_HOME": directory.path, "HOME": "/nonexistent", "LS_KEY": "  env-secret \n"])
        let path = BackendConfiguration.standardPath(environment)
        #expect(path == directory.path + "/reception/backends.json")
        let configuration = BackendConfiguration(path: path, plugins: [LoopSymphonyPlugin.plugin])
        #expect(try configuration.load().isEmpty)
        let keyFile = directory.appendingPathComponent("dev.key").path
        try "file-secret\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        try FileManager.default.createDirectory(atPath: environment.configDirectory, withIntermediateDirectories: true)
        try """
        {"profiles": [
          {"name": "prod", "kind": "loop-symphony", "url": "https://loop.example.com/", "api_key_env": "LS_KEY", "user_id": "matt", "trust_level": 1},
          {"name": "dev", "kind": "loop-symphony", "url": "http://127.0.0.1:8765", "api_key_file": "\(keyFile)"},
          {"name": "nokey", "kind": "loop-symphony", "url": "http://10.0.0.1:8765", "api_key_env": "MISSING_VAR"}
        ]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let profiles = try configuration.load()
        func named(_ name: String) throws -> BackendProfile { try #require(profiles.first { $0.name == name }) }
        let prod = try LoopSymphonyPlugin.configuration(for: named("prod"), environment: environment)
        #expect(prod.baseURL == "https://loop.example.com" && prod.apiKey == "env-secret" && prod.userID == "matt" && prod.defaultTrustLevel == 1)
        let prodSummary = try named("prod").summary
        #expect(!prod.description.contains("env-secret") && !prodSummary.contains("env-secret"))
        #expect(prodSummary.contains("from $LS_KEY"), "\(prodSummary)")
        #expect(try LoopSymphonyPlugin.configuration(for: named("dev"), environment: environment).apiKey == "file-secret")
        do {
            _ = try LoopSymphonyPlugin.configuration(for: named("nokey"), environment: environment)
            Issue.record("a missing key variable must be an error")
        } catch {
            #expect("\(error)".contains("MISSING_VAR") && "\(error)".contains("not set") && "\(error)".contains("nokey"), "\(error)")
        }
        // A key file others can read is refused, with the fix in the message and never the key.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile)
        do {
            _ = try LoopSymphonyPlugin.configuration(for: named("dev"), environment: environment)
            Issue.record("a 0644 key file must be refused")
        } catch {
            let text = "\(error)"
            #expect(text.contains("chmod 600 \(keyFile)") && text.contains("0644") && !text.contains("file-secret"), "\(text)")
        }
        #expect(BackendConfiguration.standardPath(.standard(["HOME": "/home/someone"])) == "/home/someone/.config/reception/backends.json")
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func theKnowledgeCacheIsReadableByItsOwnerOnly() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func mode(_ path: String) -> Int? { (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue }
        let fresh = directory.appendingPathComponent("profiles/new.sqlite").path
        _ = try KnowledgeCache(path: fresh)
        #expect(mode(fresh) == 0o600 && mode(directory.appendingPathComponent("profiles").path) == 0o700)
        let old = directory.appendingPathComponent("old.sqlite").path
        _ = try KnowledgeCache(path: old)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: old)
        _ = try KnowledgeCache(path: old)
        #expect(mode(old) == 0o600, "a cache left world-readable by an older version is narrowed")
    }

    @Test func theBuiltInProfileReadsTheEnvironmentAndRefusesABadTrustLevel() throws {
        let plugin = LoopSymphonyPlugin.plugin
        let environment = PluginEnvironment.standard(["HOME": "/nonexistent", "LOOP_SYMPHONY_URL": "http://127.0.0.1:9000/",
                                                      "LOOP_SYMPHONY_TRUST_LEVEL": "2", "USER": "someone"])
        let builtIn = try #require(plugin.builtInProfile?(environment))
        let configuration = try LoopSymphonyPlugin.configuration(for: builtIn, environment: environment)
        #expect(configuration.baseURL == "http://127.0.0.1:9000" && configuration.defaultTrustLevel == 2 && configuration.userID == "someone")
        #expect(configuration.apiKey == "dev-key", "a loopback URL without a key gets the reference server's development key")
        for bad in ["7", "-1", "high"] {
            var variables = environment.variables
            variables["LOOP_SYMPHONY_TRUST_LEVEL"] = bad
            let profile = try #require(plugin.builtInProfile?(.standard(variables)))
            #expect(throws: ProfileError.self) { try LoopSymphonyPlugin.configuration(for: profile, environment: .standard(variables)) }
        }
    }

    @Test func configurationFromEnvironment() {
        let configuration = LoopSymphonyConfiguration.fromEnvironment([
            "LOOP_SYMPHONY_URL": "http://127.0.0.1:9000/", "LOOP_SYMPHONY_API_KEY": "k", "LOOP_SYMPHONY_USER_ID": "u", "LOOP_SYMPHONY_TRUST_LEVEL": "2",
        ])
        #expect(configuration?.baseURL == "http://127.0.0.1:9000" && configuration?.apiKey == "k" && configuration?.userID == "u"
                && configuration?.defaultTrustLevel == 2)
        #expect(LoopSymphonyConfiguration.fromEnvironment([:]) == nil)
    }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [RoomPresence.Event] = []
    func append(_ event: RoomPresence.Event) { lock.lock(); events.append(event); lock.unlock() }
    var all: [RoomPresence.Event] { lock.lock(); defer { lock.unlock() }; return events }
    var beats: Int { all.filter { if case .heartbeat = $0 { true } else { false } }.count }
}

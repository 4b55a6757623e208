import Foundation
import GRDB
import ReceptionCore
import ReceptionLoomi
import ReceptionReferenceServers
import ReceptionTesting
import ReceptionTestSupport
import Testing

@Suite("Loomi: decision and recipe caches")
struct CacheTests {
    @Test func aRepeatedRecipeIsServedFromTheCacheWithTheServerStopped() async throws {
        try await withLoomi { loomi in
            let first = try #require(result(in: try await collect(loomi.backend.submit(search("vegan cheesecake")))))
            #expect(first.text.contains("1. Perfect Vegan Cheesecake (session_recipe_001)\n"), "\(first.text)")
            await loomi.server.stop()

            // The same question again: the decision and every card come from the cache.
            let events = try await collect(loomi.backend.submit(search("vegan cheesecake")))
            let again = try #require(result(in: events))
            #expect(again.outcome == .complete)
            #expect(again.text.contains("1. Perfect Vegan Cheesecake (session_recipe_001) · from the cache"), "\(again.text)")
            #expect(progressMessages(events).contains { $0.hasPrefix("Found 4 recipes (the agent's choice from the cache,") })

            let full = try await loomi.command("/recipe", ["session_recipe_001"])
            #expect(full.hasPrefix("**Perfect Vegan Cheesecake** (`session_recipe_001`) · cached"), "\(full)")
            #expect(full.contains("- 2 cups raw cashews") && full.contains("4. Fill, then chill overnight."), "\(full)")
            #expect(try await loomi.command("/recipe", ["2"]).hasPrefix("**Gluten-Free Vegan Cheesecake Bars**"), "/recipe N: the Nth card of the last answer")
            let list = try await loomi.command("/recipes")
            #expect(list.hasPrefix("Cached recipes (4, newest first; kept 24 hours):"), "\(list)")
            #expect(list.contains("`session_recipe_003` Classic New York Cheesecake"))

            // A new session (another run of the REPL) reads the same file with the server still stopped.
            let reopened = try LoomiPlugin.connect(testConfiguration(loomi.server.baseURL), name: "loomi", cachePath: loomi.cachePath)
            let recipe = try #require(reopened.commands.first { $0.name == "/recipe" })
            let text = try await recipe.run(["session_recipe_001"])
            #expect(text.contains("Perfect Vegan Cheesecake") && text.contains("session session-a"), "\(text)")
            await reopened.shutdown()
        }
    }

    @Test func theDecisionCacheExpiresAfterItsTTLAndRecipesAfterADay() async throws {
        let clock = TestClock()
        try await withLoomi(clock: clock) { loomi in
            func decisionCalls() async -> Int { await loomi.server.server.received().filter { $0.path == "/agent/find-recipes" }.count }
            _ = try await collect(loomi.backend.submit(search("chickpea curry")))
            #expect(await decisionCalls() == 1)
            clock.advance(by: 299)
            let cached = try #require(result(in: try await collect(loomi.backend.submit(search("Chickpea  CURRY!")))))
            #expect(await decisionCalls() == 1, "within five minutes the same question is answered from the cache")
            #expect(cached.text.contains("· from the cache"))
            clock.advance(by: 2)
            _ = try await collect(loomi.backend.submit(search("chickpea curry")))
            #expect(await decisionCalls() == 2, "after five minutes the agent is asked again")
            // The recipes themselves are kept a day.
            #expect(try await loomi.command("/recipes").contains("Chickpea Curry"))
            clock.advance(by: 24 * 3600 + 1)
            #expect(try await loomi.command("/recipes").hasPrefix("No recipes are cached yet"))
        }
    }

    /// A link at the cache's path was followed (its target made 0600, a
    /// journal written beside it). Now the session goes on without the cache and says why.
    @Test func aSymbolicLinkAtTheCachePathIsRefusedAndTheSessionSaysWhy() async throws {
        try await withScratchDirectory { directory in
            let document = directory + "/doc.txt", path = directory + "/cache.sqlite"
            try "someone's document".write(toFile: document, atomically: false, encoding: .utf8)
            #expect(chmod(document, 0o644) == 0 && symlink(document, path) == 0)
            let connection = try LoomiPlugin.connect(testConfiguration(refusingLoopbackURL()), name: "loomi", cachePath: path)
            #expect(connection.notice == "The recipe cache \(path) could not be opened (it is a symbolic link, which is not followed for private data (the file it points to would be changed); remove the link); this session works without it.")
            await connection.shutdown()
            #expect(try FileManager.default.attributesOfItem(atPath: document)[.posixPermissions] as? Int == 0o644)
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["doc.txt", "cache.sqlite"], "no journal")
        }
    }

    @Test func theCacheFileIsPrivateAndBounded() async throws {
        try await withScratchDirectory { directory in
            let path = directory + "/loomi/cache.sqlite"
            let cache = try LoomiCache(path: path)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            let directoryMode = try FileManager.default.attributesOfItem(atPath: directory + "/loomi")[.posixPermissions] as? Int
            #expect(mode == 0o600 && directoryMode == 0o700)
            try cache.store(try #require(RecipeRecord(.object(["id": .string("r")]))), sessionID: "s")
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600, "still private after a write")
            // The bound, on a throwaway cache (thousands of committed writes on disk would be slow).
            let clock = TestClock()
            let memory = try LoomiCache(path: ":memory:", now: { clock.now })
            for index in 0..<(LoomiCache.maxRecipes + 25) {
                clock.advance(by: 0.001)
                let record = try #require(RecipeRecord(.object(["id": .string("r\(index)"), "title": .string("Recipe \(index)")])))
                try memory.store(record, sessionID: "s")
            }
            #expect(try memory.recipes(limit: 10_000).count == LoomiCache.maxRecipes)
            #expect(try memory.recipe(id: "r0", sessionID: "s") == nil, "the oldest went first")
            #expect(try memory.recipe(id: "r\(LoomiCache.maxRecipes + 24)", sessionID: "s") != nil)
            // A record of any size is shown, but only a bounded one is kept.
            let huge = try #require(RecipeRecord(.object(["id": .string("huge"), "notes": .string(String(repeating: "x", count: LoomiCache.maxRecipeBytes))])))
            #expect(try memory.store(huge, sessionID: "s") == false)
            #expect(try memory.recipe(id: "huge", sessionID: "s") == nil)
        }
    }

    @Test func aGarbageCacheFileIsKeptAsideWithAClearMessage() async throws {
        try await withScratchDirectory { directory in
            let path = directory + "/loomi.sqlite"
            try Data("this is not a database, it is a shopping list\n".utf8).write(to: URL(fileURLWithPath: path))
            let connection = try LoomiPlugin.connect(LoomiConfiguration(baseURL: refusingLoopbackURL()), name: "loomi", cachePath: path)
            let notice = try #require(connection.notice)
            #expect(notice.hasPrefix("The recipe cache \(path) could not be read (file is not a database)"), "\(notice)")
            #expect(notice.contains("kept as \(path).corrupt-"))
            let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("loomi.sqlite.corrupt-") }
            #expect(aside.count == 1)
            let list = try #require(connection.commands.first { $0.name == "/recipes" })
            #expect(try await list.run([]).contains("No recipes are cached yet"))
            await connection.shutdown()
        }
    }

    @Test func anotherProgramsDatabaseIsKeptAsideToo() async throws {
        try await withScratchDirectory { directory in
            let path = directory + "/loomi.sqlite"
            let queue = try DatabaseQueue(path: path)
            try queue.write { try $0.execute(sql: "CREATE TABLE recipes(name TEXT); INSERT INTO recipes VALUES ('mine'); PRAGMA user_version = 7") }
            try queue.close()
            let cache = try LoomiCache(path: path)
            let problem = try #require(cache.problem)
            #expect(problem.contains("could not be read (its tables are not a recipe cache's: no such table: decisions)"), "\(problem)")
            try cache.store(try #require(RecipeRecord(.object(["id": .string("r")]))), sessionID: "s")
            #expect(try cache.recipes().map(\.recipe.id) == ["r"], "the new cache works")
        }
    }

    @Test func rowsOfTheWrongShapeAreSkippedNotFatal() async throws {
        try await withScratchDirectory { directory in
            let path = directory + "/loomi.sqlite"
            let cache = try LoomiCache(path: path)
            try cache.store(try #require(RecipeRecord(.object(["id": .string("good"), "title": .string("Good")]))), sessionID: "s")
            // Another program (or a bad disk) wrote rows this version would never write.
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(sql: "INSERT INTO recipes(session_id, recipe_id, title, body, fetched_at) VALUES ('s', 'bad', NULL, 'not json', ?)",
                               arguments: [Date().timeIntervalSince1970])
                try db.execute(sql: "INSERT INTO recipes(session_id, recipe_id, title, body, fetched_at) VALUES ('s', 'odd', NULL, 42, 'yesterday')")
                try db.execute(sql: "INSERT INTO decisions(key, session_id, search, decision, stored_at) VALUES ('k', 's', '{', X'00', ?)",
                               arguments: [Date().timeIntervalSince1970])
            }
            try queue.close()
            let reopened = try LoomiCache(path: path)
            #expect(try reopened.recipes().map(\.recipe.id) == ["good"])
            #expect(try reopened.lookup(id: "odd", preferring: nil) == nil)
            #expect(try reopened.decision(forKey: "k") == nil)
        }
    }
}

import Foundation
import ReceptionTestSupport
import Testing

/// `reception serve loomi` and the REPL over 127.0.0.1 on a pseudo-terminal: the agent's
/// answer on screen before the recipe cards, the cards one by one, and the cache read with
/// the server stopped.
@Suite("Loomi through the REPL", .serialized)
struct LoomiTerminalTests {
    static let prompt = "› "

    static func home(for url: String) throws -> URL {
        let home = Scratch.root.appendingPathComponent("reception-loomi-e2e-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try #"{"profiles":[{"name":"lo","kind":"loomi","url":"\#(url)"}]}"#
            .write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        return home
    }

    /// The session reaches the server through a relay that holds back the recipe data until
    /// the answer is on screen: shown first, whatever the clock says.
    @Test func theAnswerComesFirstThenTheCardsAndTheCacheWorksWithTheServerStopped() async throws {
        let (server, url) = try await ReferenceServerProcess.start(["loomi", "--recipe-delay-ms", "200"], url: #"http://127\.0\.0\.1:\d+"#)
        defer { if server.isRunning { server.stop() } }
        let relay = try RequestRelay(to: Int(url.split(separator: ":").last!)!)
        defer { relay.close() }
        let home = try Self.home(for: "http://127.0.0.1:\(relay.port)")
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try TerminalSession(arguments: ["--backend", "lo", "--trust", "1"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        relay.holdAnswers(to: "POST /recipes/by-ids")
        terminal.enter("vegan cheesecake")
        at = try await terminal.waitFor("Found 2 perfect matches for your vegan cheesecake!", after: at)
        // The data was asked for, and not a byte of its answer had reached the client.
        try await eventually("the request for the recipe data") { !relay.requests(containing: "POST /recipes/by-ids").isEmpty }
        #expect(!terminal.screen[at...].contains("1. "), "no card before the data")
        relay.releaseHeld()
        at = try await terminal.waitFor("1. Perfect Vegan Cheesecake (session_recipe_001)", after: at)
        at = try await terminal.waitFor("4. Protein Chocolate Cheesecake Cups", after: at)
        try await terminal.waitFor("Not in the data: instructions.", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)

        server.terminate()
        server.waitUntilExit()
        terminal.enter("/recipe session_recipe_001")
        at = try await terminal.waitFor("Fill, then chill overnight.", after: at)
        terminal.enter("/recipes")
        at = try await terminal.waitFor("Cached recipes (4", after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
        let cache = home.appendingPathComponent(".cache/reception/loomi/lo.sqlite").path
        let mode = try FileManager.default.attributesOfItem(atPath: cache)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aFailedDetailsCallKeepsTheAnswerAndRecipesRetryLoadsTheCards() async throws {
        // The first three data calls (one answer's three attempts) fail with 503.
        let (server, url) = try await ReferenceServerProcess.start(["loomi", "--recipe-delay-ms", "0", "--fail-recipe-calls", "3"],
                                                             url: #"http://127\.0\.0\.1:\d+"#)
        defer { server.stop() }
        let home = try Self.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try TerminalSession(arguments: ["--backend", "lo"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("pasta")
        at = try await terminal.waitFor("Here are 2 pasta recipes to start with.", after: at)
        at = try await terminal.waitFor("1. Not loaded yet (session_recipe_001): /recipes retry loads it.", after: at)
        at = try await terminal.waitFor("The answer above stands; /recipes retry loads the rest.", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/recipes retry")
        at = try await terminal.waitFor("1. Creamy Tomato Pasta (session_recipe_001)", after: at)
        at = try await terminal.waitFor("2. Gluten-Free Penne Primavera (session_recipe_002)", after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }
}

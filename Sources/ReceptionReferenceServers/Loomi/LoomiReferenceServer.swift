import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReceptionCore

/// What the Loomi reference server does, and how fast.
public struct LoomiReferenceOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port = 8791
    /// Keys accepted as `Authorization: Bearer`; empty: no authentication.
    public var apiKeys: [String] = []
    /// Pause before the agent's decision (the guide: 1–2 s on the real thing).
    public var decisionDelay: Duration = .zero
    /// Pause before each recipe of a `/recipes/by-ids` answer ("slow" in the query makes it `slowRecipeDelay`).
    public var recipeDelay: Duration = .milliseconds(150)
    public var slowRecipeDelay: Duration = .seconds(1)
    /// The first this many `/recipes/by-ids` calls fail (503), to try the retry paths.
    public var failingRecipeCalls = 0
    /// Where `/recipes/by-ids` redirects (302) instead of answering: a client must report it
    /// and never follow it with its key (nil: no redirect).
    public var recipeRedirect: String?
    /// Awaited before each recipe of a `/recipes/by-ids` answer is written, with its index
    /// (from 0): a test holds the next recipe at the server until the client has shown the
    /// one before, so "shown as it arrives" is checked without a clock (nil: no hold).
    public var recipeGate: (@Sendable (Int) async -> Void)?

    public init(port: Int = 8791, apiKeys: [String] = [], decisionDelay: Duration = .zero, recipeDelay: Duration = .milliseconds(150),
                slowRecipeDelay: Duration = .seconds(1), failingRecipeCalls: Int = 0) {
        self.port = port
        self.apiKeys = apiKeys
        self.decisionDelay = decisionDelay
        self.recipeDelay = recipeDelay
        self.slowRecipeDelay = slowRecipeDelay
        self.failingRecipeCalls = failingRecipeCalls
    }
}

/// A deterministic Loomi recipe agent for tests and for trying Reception: `reception serve loomi`.
///
/// The two endpoints were never built upstream (upstream-contracts §5), so this server
/// speaks the integration guide's contract (seed 004): `POST /agent/find-recipes {query,
/// target_count, session_id}` → `{response, selected_recipe_ids, agent_metadata}`, and
/// `POST /recipes/by-ids {recipe_ids, session_id, fields_requested}` → `{recipes: [...]}`,
/// written one recipe at a time so clients can show each as it arrives. Like the nearest
/// upstream code (`two_endpoint_agent.py`), ids are numbered per session memory
/// (`session_recipe_001`…), the data call answers an unknown session with
/// `{"error": "Session not found", "recipes": [], "suggestion": …}` and names the ids it
/// does not have in `metadata.missing_ids`. Errors are FastAPI's `{"detail": …}`.
///
/// Words in the query script the rest: "ghost" adds an id the data service does not have,
/// "slow" makes the data call slow, "dropped" cuts the data answer after its first recipe,
/// "unusual" adds fields and values no client knows, "fail" makes the agent fail (500).
/// A message without a dish refines the session's last search ("make it gluten-free").
public struct LoomiReferenceServer: Sendable {
    public let options: LoomiReferenceOptions
    let state: LoomiReferenceState

    public init(options: LoomiReferenceOptions = LoomiReferenceOptions()) {
        self.options = options
        state = LoomiReferenceState(failingRecipeCalls: options.failingRecipeCalls)
    }

    /// Serves until the surrounding task is cancelled; `onReady` gets the bound port.
    public func run(onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let server = self
        let app = loopbackApplication(host: options.host, port: options.port, label: "loomi-reference", onReady: onReady) { await server.respond($0) }
        try await app.run()
    }

    /// Request bodies received so far as (path, body), oldest first (tests read what the client sent).
    public func received() async -> [(path: String, body: JSONValue)] { await state.bodies }

    /// From now on, the next `count` data calls fail: with 503, or (`drop`) cut after their first recipe.
    public func failRecipeCalls(_ count: Int, drop: Bool = false) async { await state.setFailures(count, drop: drop) }

    /// Forgets every session, as a restart of the real service would (sessions live in memory).
    public func forgetSessions() async { await state.forgetSessions() }

    func respond(_ request: Request) async -> Response {
        var request = request
        if !options.apiKeys.isEmpty {
            let given = request.headers[.authorization]
            guard let given, given.hasPrefix("Bearer "), options.apiKeys.contains(String(given.dropFirst(7))) else {
                return Self.json(401, .object(["detail": .string("Invalid API key")]))
            }
        }
        let path = request.uri.path
        guard path == "/agent/find-recipes" || path == "/recipes/by-ids" else {
            return Self.json(404, .object(["detail": .string("Not Found")]))
        }
        guard request.method == .post else { return Self.json(405, .object(["detail": .string("Method Not Allowed")])) }
        let data = (try? await request.collectBody(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
        guard let body = try? Wire.decode(JSONValue.self, from: data), case .object = body else {
            return Self.json(422, .object(["detail": .array([.object([
                "type": .string("json_invalid"), "loc": .array([.string("body")]), "msg": .string("JSON decode error"), "input": .null,
            ])])]))
        }
        await state.record(path: path, body: body)
        return path == "/agent/find-recipes" ? await findRecipes(body) : await recipesByIDs(body)
    }

    func findRecipes(_ body: JSONValue) async -> Response {
        guard let query = body["query"]?.stringValue, !query.trimmingCharacters(in: .whitespaces).isEmpty else {
            return Self.missing("query")
        }
        guard let sessionID = body["session_id"]?.stringValue, !sessionID.isEmpty else { return Self.missing("session_id") }
        let count = min(12, max(1, body["target_count"]?.intValue ?? 4))
        let words = LoomiReferenceAgent.words(query)
        if words.contains("fail") {
            return Self.json(500, .object(["detail": .string("The agent could not search: the recipe index is unavailable (scripted by \"fail\").")]))
        }
        if options.decisionDelay > .zero { try? await Task.sleep(for: options.decisionDelay) }
        let decision = await state.decide(words: words, sessionID: sessionID, count: count)
        return Self.json(200, decision)
    }

    func recipesByIDs(_ body: JSONValue) async -> Response {
        if let location = options.recipeRedirect {
            return Response(status: .found, headers: [.location: location, .contentType: "application/json"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"detail": "Moved"}"#)))
        }
        guard case .array(let rawIDs)? = body["recipe_ids"] else { return Self.missing("recipe_ids") }
        guard let sessionID = body["session_id"]?.stringValue else { return Self.missing("session_id") }
        let ids = rawIDs.compactMap(\.stringValue).prefix(50)
        let failure = await state.takeFailure()
        if failure == .unavailable {
            return Self.json(503, .object(["detail": .string("Recipe data service unavailable")]))
        }
        guard let lookup = await state.lookup(ids: Array(ids), sessionID: sessionID) else {
            return Self.json(200, .object(["error": .string("Session not found"), "recipes": .array([]),
                                           "suggestion": .string("Search again with /agent/find-recipes; sessions are kept in memory only.")]))
        }
        let drop = lookup.flags.contains("dropped") || failure == .drop
        let delay = lookup.flags.contains("slow") ? options.slowRecipeDelay : options.recipeDelay
        let unusual = lookup.flags.contains("unusual")
        let found = lookup.found
        let missing = lookup.missing
        let gate = options.recipeGate
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "{\"recipes\": ["))
            for (index, item) in found.enumerated() {
                if delay > .zero { try await Task.sleep(for: delay) }
                if let gate { await gate(index) }
                let recipe = LoomiReferenceCatalog.recipes[item.index].json(id: item.id, unusual: unusual)
                try await writer.write(ByteBuffer(string: (index == 0 ? "" : ", ") + Wire.jsonString(recipe)))
                if drop {
                    // Let the recipe reach the client before the connection goes, so what a
                    // cut leaves behind is always the same.
                    try await Task.sleep(for: .milliseconds(100))
                    throw LoomiReferenceDrop()
                }
            }
            var metadata: [String: JSONValue] = [
                "lookup_time": .string("0.01s"), "retrieved_count": .number(Double(found.count)),
                "missing_ids": .array(missing.map(JSONValue.string)),
            ]
            if unusual { metadata["cache_tier"] = .string("glacier") }
            try await writer.write(ByteBuffer(string: "], \"metadata\": \(Wire.jsonString(JSONValue.object(metadata)))}"))
            try await writer.finish(nil)
        })
    }

    static func missing(_ field: String) -> Response {
        json(422, .object(["detail": .array([.object([
            "type": .string("missing"), "loc": .array([.string("body"), .string(field)]), "msg": .string("Field required"), "input": .null,
        ])])]))
    }

    static func json(_ status: Int, _ value: JSONValue) -> Response {
        Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: Wire.jsonString(value))))
    }
}

/// Thrown to cut a data answer mid-body, as a dropped connection would.
struct LoomiReferenceDrop: Error {}

import ReceptionCore
import ReceptionSoul

/// The soul's language-model rewrite stage, wired from a backend profile: `--rewrite NAME`,
/// or an openai profile that says `"rewrite": true`. The soul module never sees the adapter:
/// it gets a `TextRewriter` (the core's protocol) over the connected backend.
enum RewriteSetup {
    /// The rewrite profile's `max_tokens` when it sets none.
    static let defaultMaximumTokens = 512

    struct Stage {
        var name: String
        var rewriter: SoulRewriter
        var connection: BackendConnection
    }

    /// The profile to rewrite with: `requested` (`off` for none), else the one the
    /// configuration opts in, else none.
    static func profileName(requested: String?, in catalog: BackendCatalog) throws -> String? {
        if let requested { return requested == "off" ? nil : requested }
        let opted = catalog.entries.filter { $0.profile.boolean("rewrite") == true }.map(\.profile.name)
        guard opted.count <= 1 else {
            throw BackendCatalogError(description: "Several profiles say \"rewrite\": true (\(opted.joined(separator: ", "))); choose one with --rewrite NAME.")
        }
        return opted.first
    }

    /// Connects the profile and checks it reads prompts. `timeoutSeconds` overrides the
    /// profile's `rewrite_timeout_s` (default 30).
    static func connect(_ name: String, in catalog: BackendCatalog, timeoutSeconds: Int?) async throws -> Stage {
        var (profile, plugin) = try catalog.entry(named: name)
        // A rewrite is about as long as its text: without a limit a small model may ramble to
        // the end of its context, which on a CPU takes minutes.
        if plugin.option(named: "max_tokens") != nil, profile.values["max_tokens"] == nil {
            profile.values["max_tokens"] = .integer(defaultMaximumTokens)
        }
        let connection = try await plugin.connect(profile, catalog.environment)
        guard connection.backend.descriptor.capabilities.contains(.systemPrompt) else {
            await connection.shutdown()
            throw BackendCatalogError(description: "--rewrite needs a language-model backend (an openai profile); \(name) is of kind \(profile.kind).")
        }
        let seconds = timeoutSeconds ?? profile.integer("rewrite_timeout_s") ?? 30
        let rewriter = SoulRewriter(rewriter: BackendTextRewriter(backend: connection.backend, name: name), timeout: .seconds(seconds))
        return Stage(name: name, rewriter: rewriter, connection: connection)
    }
}

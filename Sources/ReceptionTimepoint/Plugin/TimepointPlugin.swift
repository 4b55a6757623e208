import Foundation
import ReceptionCore

/// The `timepoint` plugin: a TIMEPOINT Flash server (historical scenes, character chat,
/// time travel), signed in with JWTs.
///
/// Without a profile, `--backend timepoint` reads `TIMEPOINT_URL` (default
/// `http://127.0.0.1:8000`) and the dev admin key from `TIMEPOINT_ADMIN_KEY`.
public enum TimepointPlugin {
    public static let kind = "timepoint"
    public static let defaultURL = "http://127.0.0.1:8000"

    public static let options: [PluginOption] = [
        PluginOption("url", .url, help: "the server's root, e.g. http://127.0.0.1:8000 (/api/v1 is added)", required: true),
        PluginOption("admin_key", .secret, help: "X-Admin-Key for /signin dev (the server's ADMIN_API_KEY); sent to /auth/dev/token only"),
        PluginOption("generation", .choice(TimepointConfiguration.GenerationMode.allCases.map(\.rawValue)),
                     help: "how scenes are generated: stream (each step live, default), background (polled), sync"),
        PluginOption("preset", .choice(["balanced", "hd", "hyper", "gemini3"]), help: "the generation preset (default balanced)"),
        PluginOption("generate_image", .boolean, help: "also generate each scene's image (default false)"),
        PluginOption("visibility", .choice(SceneVisibility.allCases.map(\.rawValue)), help: "visibility of new scenes (default public)"),
        PluginOption("poll_interval_s", .integer(3...5), help: "seconds between polls of a background generation (default 3)"),
        PluginOption("token_file", .string, help: "where the refresh token is kept (default STATE/timepoint/PROFILE.json, mode 0600)"),
    ]

    public static let plugin = BackendPlugin(
        kind: kind, summary: "TIMEPOINT Flash: generate historical scenes, talk to their people, jump in time (JWT sign-in, credits)",
        options: options,
        discussion: """
        Without a profile: TIMEPOINT_URL (default \(defaultURL)) and TIMEPOINT_ADMIN_KEY for /signin dev. \
        The refresh token is kept in a 0600 file under the XDG state directory; the access token only in memory.
        """,
        builtInProfile: builtInProfile,
        endpoint: { profile, _ in profile.string("url").map { TimepointConfiguration(baseURL: $0, tokenFile: "").baseURL } },
        connect: { profile, environment in try await connect(configuration(for: profile, environment: environment), name: profile.name) })

    static func builtInProfile(_ environment: PluginEnvironment) -> BackendProfile {
        var values: [String: ProfileValue] = ["url": .string(environment[variable: "TIMEPOINT_URL"] ?? defaultURL)]
        if environment[variable: "TIMEPOINT_ADMIN_KEY"] != nil { values["admin_key"] = .secretFromEnvironment("TIMEPOINT_ADMIN_KEY") }
        return BackendProfile(name: kind, kind: kind, values: values, origin: "the TIMEPOINT_* environment variables")
    }

    /// A client configuration for a validated profile.
    public static func configuration(for profile: BackendProfile, environment: PluginEnvironment) throws -> TimepointConfiguration {
        guard let url = profile.string("url") else { throw ProfileError(profile: profile, "it has no url.") }
        let safeName = String(profile.name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(64))
        let tokenFile = profile.string("token_file").map { UserPath.expand($0, environment: environment.variables) } ?? "\(environment.stateDirectory)/timepoint/\(safeName.isEmpty ? kind : safeName).json"
        var configuration = TimepointConfiguration(baseURL: url, tokenFile: tokenFile)
        do {
            configuration.adminKey = try profile.secret("admin_key", environment: environment).map(SecretToken.init)
        } catch {
            // Any problem with the key (a file others can read, one that cannot be read, an
            // unset variable) is /signin dev's alone: said there and at start, never fatal.
            configuration.adminKeyProblem = (error as? ProfileError)?.description ?? "the admin key cannot be read: \(PlainFile.reason(of: error))"
        }
        if let mode = profile.string("generation").flatMap(TimepointConfiguration.GenerationMode.init(rawValue:)) { configuration.generation = mode }
        configuration.preset = profile.string("preset")
        configuration.generateImage = profile.boolean("generate_image") ?? false
        configuration.visibility = profile.string("visibility").flatMap(SceneVisibility.init(rawValue:))
        if let seconds = profile.integer("poll_interval_s") { configuration.pollInterval = .seconds(seconds) }
        return configuration
    }

    /// Connects: reads the cost table (which also checks the address), and when a sign-in
    /// is saved, renews it, so the person hears at once whether they are still signed in.
    public static func connect(_ configuration: TimepointConfiguration, name: String, atTokenWriteStage: @escaping @Sendable (RefreshTokenFile.WriteStage) -> Void = { _ in }) async throws -> BackendConnection {
        let client = TimepointClient(configuration: configuration, atTokenWriteStage: atTokenWriteStage)
        let backend = TimepointBackend(client: client, name: name)
        do {
            _ = try await client.costs()
        } catch TimepointError.notFound(let words) {
            // Something answers there, but not TIMEPOINT's API: name the URL and what it should be.
            await client.shutdown()
            let url = RedactedURL.display(configuration.baseURL)
            throw TimepointError.unavailable("The server at \(url) has no TIMEPOINT API: GET /api/v1/credits/costs answered 404 (\(words)). Is \(url) TIMEPOINT Flash's base URL (its root, without /api/v1)?")
        } catch {
            let saved = await client.session.hasSavedSignIn
            await client.shutdown()
            // The backend does not start without its server, so /signout cannot run: say how
            // to forget the saved sign-in without it, and what that leaves on the server.
            guard saved else { throw error }
            throw TimepointError.unavailable("""
                \(error)
                A sign-in is saved in \(configuration.tokenFile). To forget it while the server cannot be reached, delete that file; \
                the server keeps it valid until it expires (/signout, once the server answers, also revokes it there).
                """)
        }
        var notice: String
        if await client.session.hasSavedSignIn {
            do {
                let user = try await client.me()
                notice = "Signed in as \(user.email ?? user.displayName ?? user.id) (saved sign-in)."
            } catch let error as TimepointError {
                notice = error.description
            } catch {
                notice = "The saved sign-in could not be checked: \(error)."
            }
        } else {
            notice = await client.session.signedOutReason ?? TimepointSession.notSignedIn
        }
        if let warning = await client.session.warning { notice += " " + warning }
        notice += " Type a moment in history (e.g. “Oppenheimer at Trinity, 1945”) to generate a scene; /help lists the TIMEPOINT commands."
        // Last, on a line of its own: it may end in a command to copy, which no full stop may follow.
        if let problem = configuration.adminKeyProblem { notice += "\n" + TimepointClient.devSignInUnavailable(problem) }
        return BackendConnection(backend: backend, commands: TimepointCommands(backend: backend).all, notice: notice,
                                 continuity: backend.continuity,
                                 shutdown: { await client.shutdown() })
    }
}

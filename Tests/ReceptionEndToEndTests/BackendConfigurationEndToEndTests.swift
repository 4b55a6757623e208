import Foundation
import ReceptionTestSupport
import Testing

/// The configuration file as a person meets it: `reception backends`, and the REPL refusing
/// to start on a broken profile, and saying every problem of the file when it starts on
/// a backend they do not touch.
@Suite("Backend configuration, end to end")
struct BackendConfigurationEndToEndTests {
    func home(config: String?) throws -> URL {
        let home = Scratch.root.appendingPathComponent("reception-config-e2e-\(UUID().uuidString)")
        let directory = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let config { try config.write(to: directory.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8) }
        return home
    }

    @Test func backendsListsEveryKindWithItsOptionsAndTheProfiles() async throws {
        let home = try home(config: #"{"profiles": [{"name": "notes", "kind": "local", "knowledge": "/tmp/notes", "step_ms": 5}]}"#)
        defer { try? FileManager.default.removeItem(at: home) }
        let (output, status) = try await PipedREPL.run(["backends"], input: "", home: home)
        #expect(status == 0, "\(output)")
        for expected in ["local — embedded", "loop-symphony — Loop Symphony", "api_key_env | api_key_file", "trust_level: the trust level",
                         "notes (local): knowledge /tmp/notes, step_ms 5", "loop-symphony (loop-symphony): url http://127.0.0.1:8765"] {
            #expect(output.contains(expected), "missing \(expected):\n\(output)")
        }
    }

    /// The listing named a key's variable or file without saying whether it could be used: a
    /// variable unset in this shell was found out only at start. Each secret is looked up now
    /// and marked, its value never shown; a problem is a warning, not an error of the file.
    @Test func backendsSaysWhetherEachProfilesSecretCanBeRead() async throws {
        let home = try home(config: """
        {"profiles": [
          {"name": "hosted", "kind": "openai", "url": "https://api.example.com/v1", "api_key_env": "HOSTED_KEY"},
          {"name": "unset", "kind": "openai", "url": "https://api.example.com/v1", "api_key_env": "UNSET_KEY"},
          {"name": "filed", "kind": "openai", "url": "https://api.example.com/v1", "api_key_file": "~/open-key"}
        ]}
        """)
        defer { try? FileManager.default.removeItem(at: home) }
        let keyFile = home.appendingPathComponent("open-key")
        try "sk-file-secret-42\n".write(to: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile.path)
        let (output, status) = try await PipedREPL.run(["backends"], input: "", home: home, environment: ["HOSTED_KEY": "sk-env-secret-17"])
        #expect(status == 0, "a secret that cannot be read now is no error of the file:\n\(output)")
        #expect(output.contains("hosted (openai): api_key from $HOSTED_KEY (set), url https://api.example.com/v1"), "\(output)")
        #expect(output.contains("unset (openai): api_key from $UNSET_KEY (not usable)"), "\(output)")
        #expect(output.contains("    warning: the environment variable UNSET_KEY that should hold api_key is not set."), "\(output)")
        #expect(output.contains("filed (openai): api_key from ~/open-key (not usable)"), "\(output)")
        #expect(output.contains("because its mode is 0644; other users could read it. Run: chmod 600 \(keyFile.path)"), "\(output)")
        #expect(!output.contains("sk-env-secret-17") && !output.contains("sk-file-secret-42"), "no secret is shown:\n\(output)")

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        let (fixed, _) = try await PipedREPL.run(["backends"], input: "", home: home)
        #expect(fixed.contains("filed (openai): api_key from ~/open-key (set)") && !fixed.contains("sk-file-secret-42"), "\(fixed)")
    }

    @Test func aBrokenConfigurationStopsTheREPLWithEveryProblemLocated() async throws {
        let home = try home(config: """
        {"profiles": [
          {"name": "prod", "kind": "loop-symphony", "url": "https://loop.example.com", "api_kye_env": "KEY"},
          {"name": "odd", "kind": "loop-symphony", "url": "https://x.example", "trust_level": 5}
        ]}
        """)
        defer { try? FileManager.default.removeItem(at: home) }
        let (output, status) = try await PipedREPL.run(["--backend", "prod", "--local-step-ms", "1"], input: "what can reception do?\n", home: home)
        #expect(status == 1)
        #expect(output.contains("error: the backend configuration has problems"), "\(output)")
        #expect(output.contains("backends.json:2:"), "\(output)")
        #expect(output.contains("Did you mean \"api_key_env\"?"), "\(output)")
        #expect(output.contains("backends.json:3:") && output.contains("trust_level must be an integer from 0 to 2; got 5"), "\(output)")
        #expect(!output.contains("curiosity"), "no message is sent on a configuration the person did not mean")

        // On a backend the problems do not touch (the embedded one), the session starts: a
        // typo in a profile nobody asked for stopped even `reception` on its own. Every
        // problem is said first, and the broken profiles are left out.
        let (local, localErrors, localStatus) = try await PipedREPL.run(["--local-step-ms", "1"], input: "what can reception do?\n/backend odd\n",
                                                                         home: home, separateErrors: true)
        #expect(localStatus == 0, "\(local)\(localErrors)")
        #expect(localErrors.contains("warning: the backend configuration has problems (left out this session: odd, prod):"), "\(localErrors)")
        #expect(localErrors.contains("backends.json:2:") && localErrors.contains("backends.json:3:"), "\(localErrors)")
        #expect(local.contains("curiosity"), "\(local)")
        #expect((local + localErrors).contains("The profile odd has problems in the backend configuration (said when Reception started), so it is left out of this session; fix them and start again. Still on the local backend."),
                "a left-out profile is not used, and /backend says why: \(local)\(localErrors)")

        // A file that cannot be read as profiles at all still stops it.
        let unreadable = try self.home(config: "{\"profiles\": [")
        defer { try? FileManager.default.removeItem(at: unreadable) }
        let (_, stopped) = try await PipedREPL.run(["--local-step-ms", "1"], input: "what can reception do?\n", home: unreadable)
        #expect(stopped == 1)
    }

    @Test func aProfileOfTheLocalKindIsUsedByName() async throws {
        let notes = Scratch.root.appendingPathComponent("reception-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try "# Roses\nRoses need six hours of sun and deep watering once a week.\n".write(to: notes.appendingPathComponent("garden.md"), atomically: true, encoding: .utf8)
        let home = try home(config: #"{"profiles": [{"name": "garden", "kind": "local", "knowledge": "\#(notes.path)", "step_ms": 1}]}"#)
        defer { try? FileManager.default.removeItem(at: home); try? FileManager.default.removeItem(at: notes) }
        let (output, status) = try await PipedREPL.run(["--backend", "garden", "--trust", "1"], input: "how much sun do roses need?\n", home: home)
        #expect(status == 0, "\(output)")
        #expect(output.contains("six hours of sun"), "\(output)")
    }

    @Test func anUnknownBackendNameSuggestsTheNearestOne() async throws {
        let (output, status) = try await PipedREPL.run(["--backend", "loop-symfony"], input: "")
        #expect(status != 0)
        #expect(output.contains("Unknown backend \"loop-symfony\". Did you mean loop-symphony?"), "\(output)")
    }
}

import Foundation
import ReceptionConfiguration
import ReceptionCore
import ReceptionTestSupport
import Testing

/// A plugin with one option of each kind, so every check of the loader is exercised without
/// depending on a real adapter.
private let plugin = BackendPlugin(
    kind: "echo", summary: "test plugin",
    options: [
        PluginOption("url", .url, help: "where", required: true),
        PluginOption("api_key", .secret, help: "key"),
        .trustLevel,
        PluginOption("temperature", .number(0...2), help: "sampling"),
        PluginOption("stream", .boolean, help: "stream"),
        PluginOption("mode", .choice(["fast", "careful"]), help: "mode"),
    ],
    connect: { _, _ in throw BackendCatalogError(description: "not in tests") })

private let other = BackendPlugin(kind: "local", summary: "other", connect: { _, _ in throw BackendCatalogError(description: "no") })

@Suite("Backend configuration")
struct BackendConfigurationTests {
    let configuration = BackendConfiguration(path: "backends.json", plugins: [plugin, other])

    func issues(_ text: String) -> [ConfigurationIssue] {
        do {
            _ = try configuration.parse(text)
            return []
        } catch let errors as ConfigurationErrors {
            return errors.issues
        } catch {
            return [ConfigurationIssue(file: "?", "unexpected \(error)")]
        }
    }

    @Test func aValidFileGivesTypedProfilesAndKeepsSecretsAsTheirSource() throws {
        let profiles = try configuration.parse("""
        {"profiles": [
          {"name": "a", "kind": "echo", "url": "https://x.example", "api_key_env": "ECHO_KEY", "trust_level": 2,
           "temperature": 0.5, "stream": false, "mode": "careful"},
          {"name": "notes", "kind": "local"}
        ]}
        """)
        #expect(profiles.map(\.name) == ["a", "notes"])
        let a = profiles[0]
        #expect(a.string("url") == "https://x.example" && a.integer("trust_level") == 2 && a.number("temperature") == 0.5)
        #expect(a.boolean("stream") == false && a.string("mode") == "careful")
        #expect(a.values["api_key"] == .secretFromEnvironment("ECHO_KEY"))
        #expect(a.origin == "backends.json:2")
        #expect(a.summary.contains("api_key from $ECHO_KEY"))
    }

    @Test func aSyntaxErrorIsLocated() {
        let found = issues("{\"profiles\": [\n  {\"name\": \"a\", \"kind\": \"echo\",, \"url\": \"x\"}\n]}\n")
        #expect(found.count == 1)
        #expect(found.first?.line == 2, "\(found)")
        #expect(found.first?.description.hasPrefix("backends.json:2:") == true, "\(found)")
        #expect(found.first?.message.contains("syntax error") == true)
    }

    /// In YAML, a key without its colon is noticed on the next line: the error points at the
    /// key's own line, once.
    @Test func aYAMLKeyWithoutItsColonIsPlacedAtItsLine() {
        let found = issues("profiles:\n  - name: a\n    kind echo\n    url: x\n")
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.line == 3, "\(found)")
        #expect(found.first?.message.contains("(line") == false, "\(found)")
    }

    /// The parser's message for a key given twice quoted the whole object (the whole file,
    /// passwords in URLs included, megabytes of it for a large file): said with its place only.
    @Test func aKeyGivenTwiceIsLocatedWithoutQuotingTheFile() {
        let found = issues("""
        {"profiles": [
          {"name": "prod", "kind": "echo", "url": "https://alice:S3cretPass@loop.example.com"},
          {"name": "notes", "kind": "local", "mode": 5, "mode": 6}
        ]}
        """)
        #expect(found.count == 1, "\(found)")
        let text = found.first?.description ?? ""
        #expect(text.contains("a key is given twice in one object: \"mode\""), "\(text)")
        #expect(text.hasPrefix("backends.json:3:"), "\(text)")
        #expect(!text.contains("S3cretPass") && !text.contains("loop.example.com"), "\(text)")
    }

    @Test func anUnknownKeyIsLocatedWithADidYouMean() {
        let found = issues("""
        {"profiles": [
          {"name": "a", "kind": "echo", "url": "https://x.example",
           "api_kye_env": "K"}
        ]}
        """)
        #expect(found.count == 1)
        #expect(found.first?.line == 3 && found.first?.column == 4, "\(found)")
        #expect(found.first?.message.contains("unknown option \"api_kye_env\"") == true)
        #expect(found.first?.message.contains("Did you mean \"api_key_env\"?") == true, "\(found)")
    }

    @Test func aSecretWrittenInTheFileIsRefusedWithTheWayToGiveIt() {
        let found = issues(#"{"profiles": [{"name": "a", "kind": "echo", "url": "https://x.example", "api_key": "sk-live-123"}]}"#)
        #expect(found.count == 1)
        #expect(found.first?.message.contains("api_key_env") == true && found.first?.message.contains("api_key_file") == true)
        #expect(found.first?.description.contains("sk-live-123") == false, "the secret itself is never repeated")
    }

    @Test func wrongTypesAndOutOfRangeValuesAreErrorsNotDefaults() {
        let found = issues("""
        profiles:
          - name: a
            kind: echo
            url: "not a url"
            trust_level: 7
            temperature: "hot"
            stream: "yes"
            mode: carefull
        """)
        let messages = found.map(\.message)
        #expect(found.count == 5, "\(found)")
        #expect(messages.contains { $0.contains("url must be a URL") })
        #expect(messages.contains { $0.contains("trust_level must be an integer from 0 to 2; got 7") })
        #expect(messages.contains { $0.contains("temperature must be a number from 0.0 to 2.0; got a string") })
        #expect(messages.contains { $0.contains("stream must be true or false") })
        #expect(messages.contains { $0.contains("Did you mean \"careful\"?") })
        #expect(found.map(\.line) == [4, 5, 6, 7, 8], "each issue on its own line: \(found)")
    }

    @Test func unknownKindsDuplicatesAndMissingFieldsAreAllReportedAtOnce() {
        let found = issues("""
        {"profiles": [
          {"name": "a", "kind": "ecko", "url": "https://x.example"},
          {"name": "b", "kind": "echo"},
          {"name": "c", "kind": "local"},
          {"name": "c", "kind": "local"},
          {"kind": "local"}
        ], "profile": []}
        """)
        let messages = found.map(\.message)
        #expect(found.count == 5, "\(found)")
        #expect(messages.contains { $0.contains("unknown key \"profile\"") && $0.contains("Did you mean \"profiles\"?") })
        #expect(messages.contains { $0.contains("unknown kind \"ecko\"") && $0.contains("Did you mean \"echo\"?") })
        #expect(messages.contains { $0.contains("profile \"b\": url is required") })
        #expect(messages.contains { $0.contains("a second profile is named \"c\" (the first is on line 4)") })
        #expect(messages.contains { $0.contains("needs a \"name\" and a \"kind\"") })
    }

    /// The file is foreign text and the messages quote it: a name or a kind spelled with JSON
    /// escapes of ESC is shown without them, so printing the errors cannot retitle the window.
    @Test func escapeSequencesInTheFileDoNotReachTheMessages() {
        let found = issues(#"{"profiles": [{"name": "ev\u001b]0;pwned\u0007il", "kind": "echo"}, {"name": "x", "kind": "bogus\u001b[2J"}]}"#)
        #expect(found.count == 2, "\(found)")
        for issue in found {
            #expect(!issue.description.contains("\u{1B}") && !issue.description.contains("\u{07}"), "\(issue.description.debugDescription)")
        }
        #expect(found.contains { $0.description.contains("profile \"evil\"") || $0.description.contains("profile \"ev") }, "\(found)")
    }

    /// A built-in profile comes from environment variables, not the checked file: its URL is
    /// checked when it is used, so a typo is a clear error, not an "unreachable" server that
    /// queues messages for ever.
    @Test func aBuiltInProfilesURLFromTheEnvironmentIsChecked() async throws {
        let fromEnvironment = BackendPlugin(kind: "echo", summary: "test", options: plugin.options,
                                            builtInProfile: { _ in BackendProfile(name: "echo", kind: "echo", values: ["url": .string("htp:/127.0.0.1")],
                                                                                  origin: "the ECHO_URL environment variable") },
                                            connect: { _, _ in throw BackendCatalogError(description: "connected") })
        let catalog = BackendCatalog(plugins: [fromEnvironment], environment: PluginEnvironment.standard([:]))
        await #expect(throws: BackendCatalogError(description: "url must be a URL (http, https, ws or wss); got \"htp:/127.0.0.1\" (from the ECHO_URL environment variable).")) {
            _ = try await catalog.connect("echo")
        }
    }

    /// A port past 65535 stopped the program (the HTTP client traps on it): from the
    /// environment or a file, it is a located error, and a password in the URL stays masked.
    @Test func aPortOutOfRangeIsAnErrorNotACrash() async throws {
        let fromEnvironment = BackendPlugin(kind: "echo", summary: "test", options: plugin.options,
                                            builtInProfile: { _ in BackendProfile(name: "echo", kind: "echo", values: ["url": .string("http://me:hunter2@127.0.0.1:99999")],
                                                                                  origin: "the ECHO_URL environment variable") },
                                            connect: { _, _ in throw BackendCatalogError(description: "connected") })
        let catalog = BackendCatalog(plugins: [fromEnvironment], environment: PluginEnvironment.standard([:]))
        await #expect(throws: BackendCatalogError(description: "url \"http://me:•••@127.0.0.1:99999\": its port 99999 is not a port number (1 to 65535) (from the ECHO_URL environment variable).")) {
            _ = try await catalog.connect("echo")
        }
        let found = issues(#"{"profiles": [{"name": "far", "kind": "echo", "url": "http://127.0.0.1:65536/v1"}]}"#)
        #expect(found.contains { $0.description.contains("url \"http://127.0.0.1:65536/v1\": its port 65536 is not a port number") }, "\(found)")
        #expect(PluginOption.isURL("http://[::1]:8080/v1") && PluginOption.isURL("https://example.com") && !PluginOption.isURL("ws://h:0/ws"))
        #expect(PluginOption.isURL("http://127.0.0.1:8765?trace=1") && PluginOption.isURL("http://host:80#top"))
    }

    @Test func anAbsentFileIsNoProfilesAndADirectoryIsAnError() throws {
        let directory = Scratch.root.appendingPathComponent("reception-config-\(UUID().uuidString)")
        #expect(try BackendConfiguration(path: directory.path + "/backends.json", plugins: [plugin]).load().isEmpty)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: ConfigurationErrors.self) { try BackendConfiguration(path: directory.path, plugins: [plugin]).load() }
    }

    @Test func theCatalogPrefersAProfileToABuiltInOneAndSuggestsNames() throws {
        let environment = PluginEnvironment.standard(["HOME": "/nonexistent"])
        let profile = BackendProfile(name: "local", kind: "local", values: ["knowledge": .string("~/notes")])
        let catalog = BackendCatalog(plugins: [other, plugin], profiles: [profile], environment: environment)
        #expect(catalog.names == ["local", "echo"])
        #expect(try catalog.entry(named: "local").profile.values["knowledge"] == .string("~/notes"))
        #expect(throws: BackendCatalogError.self) { try catalog.entry(named: "ecoh") }
        do { _ = try catalog.entry(named: "ecoh") } catch { #expect("\(error)".contains("Did you mean echo?"), "\(error)") }
    }

    @Test func aSecretFileMustBeReadableByItsOwnerOnly() throws {
        let directory = Scratch.root.appendingPathComponent("reception-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("key").path
        try "s3cret\n".write(toFile: file, atomically: true, encoding: .utf8)
        let profile = BackendProfile(name: "p", kind: "echo", values: ["api_key": .secretFromFile(file)])
        let environment = PluginEnvironment.standard(["HOME": directory.path])
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file)
        do {
            _ = try profile.secret("api_key", environment: environment)
            Issue.record("a group-readable key file must be refused")
        } catch {
            #expect("\(error)".contains("chmod 600") && !"\(error)".contains("s3cret"), "\(error)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect(try profile.secret("api_key", environment: environment) == "s3cret")
        // Through a link, the file it points to counts.
        let link = directory.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(try BackendProfile(name: "p", kind: "echo", values: ["api_key": .secretFromFile(link)]).secret("api_key", environment: environment) == "s3cret")
    }

    /// A directory named as a key file is said to be one, not given "chmod 600" advice and then
    /// Foundation's "NSCocoaErrorDomain Code=256".
    @Test func aSecretFileThatIsADirectoryIsSaidPlainly() throws {
        let directory = Scratch.root.appendingPathComponent("reception-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: directory) }
        let profile = BackendProfile(name: "p", kind: "echo", values: ["api_key": .secretFromFile(directory.path)])
        for mode in [0o755, 0o700] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory.path)
            do {
                _ = try profile.secret("api_key", environment: .standard(["HOME": directory.path]))
                Issue.record("a directory is no key file")
            } catch {
                #expect("\(error)".contains("the api_key file \(directory.path) is a directory") && !"\(error)".contains("chmod") && !"\(error)".contains("NSCocoa"), "\(error)")
            }
        }
    }
}

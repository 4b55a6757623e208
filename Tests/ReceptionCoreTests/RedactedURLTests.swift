import ReceptionCore
import Testing

/// A password in a URL is never shown, also when it holds characters a URL does not allow
/// unescaped or the URL is mistyped: these are the messages that quote a URL a person got wrong.
@Suite("URLs as they are shown")
struct RedactedURLTests {
    @Test(arguments: [
        ("https://matt:s3cret@loop.example.com/api?x=1", "https://matt:•••@loop.example.com/api?x=1"),
        ("https://token@loop.example.com", "https://•••@loop.example.com"),
        ("https://alice:pa?ss-S3cret@loop.example.com", "https://alice:•••@loop.example.com"),
        ("https://bob:x#S3cret-b@api.example.com/v1", "https://bob:•••@api.example.com/v1"),
        ("https://carol:S3cret/c@codex.example.com", "https://carol:•••@codex.example.com"),
        ("http:/dave:S3cret-d@loomi.example.com", "http:/dave:•••@loomi.example.com"),
        ("dave:S3cret-e@loomi.example.com", "dave:•••@loomi.example.com"),
        // No credential: an @ in the path after a host and port, or no colon before the @.
        ("http://127.0.0.1:8765/a@b", "http://127.0.0.1:8765/a@b"),
        ("http://host/a@b", "http://host/a@b"),
    ])
    func aPasswordIsMaskedWhereverItStands(url: String, shown: String) {
        #expect(RedactedURL.display(url) == shown)
    }

    /// The port check read the password as the port and quoted it.
    @Test func aPortProblemNeverQuotesAPassword() {
        let option = PluginOption("url", .url, help: "the server")
        for url in ["https://alice:pa?ss-S3cret@loop.example.com", "https://carol:S3cret/c@codex.example.com:99999"] {
            let problem = option.urlProblem("url", url) ?? ""
            #expect(!problem.contains("S3cret") && !problem.contains("pa"), "\(problem)")
        }
        #expect(option.urlProblem("url", "https://carol:S3cret/c@codex.example.com:99999") == "url \"https://carol:•••@codex.example.com:99999\": its port 99999 is not a port number (1 to 65535).")
        #expect(option.urlProblem("url", "http://host:8o80/") == "url \"http://host:8o80/\": its port is not a port number (1 to 65535).")
    }
}

/// A key pasted where the name of its environment variable goes was listed and quoted in
/// errors ("api_key from $sk-proj-…"): it is refused without being shown.
@Test func aKeyPastedAsAVariableNameIsRefusedUnshown() {
    let plugin = BackendPlugin(kind: "hosted", summary: "s", options: [PluginOption("api_key", .secret, help: "the key")]) { _, _ in
        BackendConnection(backend: EmptyBackend())
    }
    let pasted = RawProfile(name: "h", kind: "hosted", entries: [.init(key: "api_key_env", value: .string("sk-proj-S3cretValue"), line: 4)], file: "backends.json")
    guard case .failure(let errors) = plugin.validate(pasted) else { Issue.record("a key was taken for a variable name"); return }
    #expect(errors.description.hasPrefix("backends.json:4: profile \"h\": api_key_env must name an environment variable"), "\(errors)")
    #expect(!errors.description.contains("S3cret"), "\(errors)")
    let named = RawProfile(name: "h", kind: "hosted", entries: [.init(key: "api_key_env", value: .string("HOSTED_API_KEY"))], file: "backends.json")
    guard case .success = plugin.validate(named) else { Issue.record("a variable name was refused"); return }
}

private struct EmptyBackend: Backend {
    var descriptor: BackendDescriptor { BackendDescriptor(name: "empty", summary: "", capabilities: []) }
    func submit(_ request: ReceptionRequest) -> BackendEventStream { BackendEventStream { $0.finish() } }
}

import Foundation
import ReceptionTestSupport
import Testing

/// A profile whose name is a built-in backend's wins over it: said when the configuration is
/// loaded (the REPL's start, `reception backends`), not found out when another server answers.
@Suite("Profiles named like a built-in backend")
struct ProfileNameEndToEndTests {
    func home(config: String) throws -> URL {
        let home = Scratch.root.appendingPathComponent("reception-names-e2e-\(UUID().uuidString)")
        let directory = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try config.write(to: directory.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        return home
    }

    static let config = """
    {"profiles": [
      {"name": "loop-symphony", "kind": "loop-symphony", "url": "https://loop.example.com"},
      {"name": "friday", "kind": "loop-symphony", "url": "https://other.example.com"},
      {"name": "mine", "kind": "local"}
    ]}
    """

    @Test func backendsSaysWhichBuiltInsAProfileReplaces() async throws {
        let home = try home(config: Self.config)
        defer { try? FileManager.default.removeItem(at: home) }
        let (output, status) = try await PipedREPL.run(["backends"], input: "", home: home)
        #expect(status == 0, "\(output)")
        #expect(output.contains("note: the profile loop-symphony (") && output.contains("backends.json:2) replaces the built-in backend of the same name"),
                "\(output)")
        #expect(output.contains("note: the profile friday (") && output.contains("backends.json:3) is of kind loop-symphony and takes the name of the built-in friday backend"),
                "\(output)")
        #expect(!output.contains("note: the profile mine"), "a name of its own is not a replacement: \(output)")
    }

    @Test func theREPLSaysSoWhenItLoadsTheConfiguration() async throws {
        let home = try home(config: Self.config)
        defer { try? FileManager.default.removeItem(at: home) }
        let (output, errors, status) = try await PipedREPL.run(["--local-step-ms", "1"], input: "/quit\n", home: home, separateErrors: true)
        #expect(status == 0, "\(output)\(errors)")
        #expect(errors.contains("note: the profile loop-symphony (") && errors.contains("replaces the built-in backend of the same name"), "\(errors)")
        #expect(errors.contains("takes the name of the built-in friday backend"), "\(errors)")
        #expect(!output.contains("note: the profile"), "notes go to standard error: \(output)")
    }
}

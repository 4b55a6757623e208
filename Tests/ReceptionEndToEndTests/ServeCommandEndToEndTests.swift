import Foundation
import Testing

/// `reception serve` runs the reference servers' program from beside its own executable.
@Suite("reception serve")
struct ServeCommandEndToEndTests {
    /// A release `reception` without the program beside it used to advise a debug build,
    /// which lands in `.build/debug`, where a release `reception` never looks: following the
    /// advice did not help. The advice now builds in the configuration of the binary that gave it.
    @Test(arguments: ["release", "debug", "bin"])
    func aMissingServerProgramIsBuiltWhereItIsLookedFor(folder: String) async throws {
        let binary = try Binary.reception()
        // A hard link beside the build (the same file system), in a folder named as a build
        // configuration's or an installed one's, with no reference-server program next to it.
        let scratch = URL(fileURLWithPath: binary).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("serve-hint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let lonely = scratch.appendingPathComponent(folder).appendingPathComponent("reception")
        try FileManager.default.createDirectory(at: lonely.deletingLastPathComponent(), withIntermediateDirectories: true)
        if link(binary, lonely.path) != 0 { try FileManager.default.copyItem(atPath: binary, toPath: lonely.path) }

        let (said, status) = try await PipedREPL.run(["serve", "loop-symphony"], input: "", executable: lonely.path)
        #expect(status == 64, "\(said)")
        #expect(said.contains("reception-reference-server is missing"), "\(said)")
        switch folder {
        case "release": #expect(said.contains("swift build -c release --product reception-reference-server"), "\(said)")
        case "debug": #expect(said.contains("swift build --product reception-reference-server") && !said.contains("-c release"), "\(said)")
        default: #expect(said.contains("scripts/install.sh installs it") && !said.contains("swift build"), "\(said)")
        }
    }
}

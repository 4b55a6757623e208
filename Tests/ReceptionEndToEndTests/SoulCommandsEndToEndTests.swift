import Foundation
import Testing

/// The soul tools' options are checked before they run, with the range they take.
@Suite("Soul commands through the binary")
struct SoulCommandsEndToEndTests {
    @Test func outOfRangeOptionsAreRefusedWithTheirRange() throws {
        let cases: [([String], String)] = [
            (["soul", "diff", "butler", "plain", "--width", "0"], "--width must be from 40 to 400 columns."),
            (["soul", "diff", "butler", "plain", "--width", "100000"], "--width must be from 40 to 400 columns."),
            (["soul", "bench", "--iterations", "0"], "--iterations must be from 1 to 1000000."),
        ]
        for (arguments, expected) in cases {
            let (output, errors, status) = try PipedREPL.run(arguments, input: "", separateErrors: true)
            #expect(status == 64 && errors.contains(expected), "\(arguments): \(output)\(errors)")
        }
    }

    @Test func soulListShowsALongNameWhole() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("reception-soul-list-\(UUID().uuidString)")
        let souls = home.appendingPathComponent("config/reception/souls")
        try FileManager.default.createDirectory(at: souls, withIntermediateDirectories: true)
        try "# Captain Rummy the Longwinded\n\nA pirate.\n".write(to: souls.appendingPathComponent("rummy.md"), atomically: true, encoding: .utf8)
        let (output, status) = try PipedREPL.run(["soul", "list"], input: "", home: home)
        #expect(status == 0)
        #expect(output.contains("Captain Rummy the Longwinded"), "\(output)")
    }

    /// A soul loaded from a file is marked current in `/soul list`, and a path with spaces is
    /// one path.
    @Test func aSoulFromAFileIsListedAsCurrentAndAPathMayHaveSpaces() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("reception-soul-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let file = home.appendingPathComponent("my pirate.md")
        try "# Pirate Pete\n\nArr.\n".write(to: file, atomically: true, encoding: .utf8)
        let (output, status) = try PipedREPL.run([], input: "/soul \(file.path)\n/soul list\n", home: home)
        #expect(status == 0)
        #expect(output.contains("Now speaking as Pirate Pete"), "\(output)")
        #expect(output.contains("* Pirate Pete (current, not one of these)"), "\(output)")
    }
}

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
}

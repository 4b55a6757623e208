import Foundation
import Testing
import ReceptionTestSupport
@testable import ReceptionSoul

/// The sample results `soul preview` and `soul diff` render.
@Suite("Preview sample text", .onTheCPULane)
struct SoulSampleTextTests {
    /// The REPL switches souls with `/soul NAME`; there is no `/soul switch`.
    @Test func theSampleNamesTheREPLCommandThatExists() throws {
        let preview = SoulPreview.render(try #require(SoulCatalog.builtIn("default")))
        #expect(preview.contains("`/soul butler`"), "\(preview)")
        #expect(!preview.contains("/soul switch"))
    }
}

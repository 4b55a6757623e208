import Foundation
import ReceptionCore
import Testing
import ReceptionTestSupport
@testable import ReceptionSoul

/// What small models wrap around a rewrite is taken off before the check.
@Suite("Rewrite cleaning", .onTheCPULane)
struct RewriteCleaningTests {
    @Test func labelsQuotesAndAddedSectionsGo() {
        #expect(SoulRewriter.clean("Here is the rewritten text:\n\nVery well, sir.", original: "Okay.") == "Very well, sir.")
        #expect(SoulRewriter.clean("\"Very well, sir.\"", original: "Okay.") == "Very well, sir.")
        #expect(SoulRewriter.clean("\"Quoted\" he said", original: "\"Quoted\" he said") == "\"Quoted\" he said")
        #expect(SoulRewriter.clean("The museum is shut.\n\n## Ambrose\n\nI'm a butler.", original: "The museum is closed.") == "The museum is shut.")
        #expect(SoulRewriter.clean("# Title\nText", original: "# Title\nText") == "# Title\nText")
    }
}

/// The rewrite never waits past its limit, even for a model that ignores cancellation.
@Suite("Rewrite deadline")
struct RewriteDeadlineTests {
    /// A rewriter that answers after five minutes whatever happens: cancellation does not reach it.
    struct Stubborn: TextRewriter {
        let name = "stubborn"
        func rewrite(prompt: String) async throws -> String {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + 300) { continuation.resume() }
            }
            return "late"
        }
    }

    @Test func aRewriterThatIgnoresCancellationStillTimesOut() async {
        let rewriter = SoulRewriter(rewriter: Stubborn(), timeout: .milliseconds(200))
        let clock = ContinuousClock()
        let start = clock.now
        let attempt = await rewriter.rewrite("The train leaves at 9:15.", soul: Soul(name: "Ops"))
        // Answered long before the rewriter would have (300 s), with the limit's verdict. The
        // bound is loose on purpose: in the whole suite on a loaded 2-core machine, other suites'
        // work kept the thread pool busy for 15 s; what matters is not waiting for the model.
        #expect(clock.now - start < .seconds(120))
        #expect(attempt.verdict == .failed("stubborn did not answer within 0.2 s"))
        #expect(attempt.text == "The train leaves at 9:15.")
    }
}

import Foundation
import Testing
@testable import ReceptionLocal

/// Which section a question finds in notes people wrote: guides with underlined headings and
/// generic titles, sections named for what they hold, words spelled apart or inflected.
@Suite("A question finds the section about it")
struct SectionFindingTests {
    static func best(_ question: String, in files: [String: String]) throws -> String? {
        try LocalBackendTests.knowledge(files).search(question).first?.passage.id
    }

    /// A plain-text guide: a banner of `=` rows around each part, each topic underlined with `-`.
    static let guide = """
        ================================================================================
        RECIPE AGENT - INTEGRATION GUIDE
        ================================================================================

        OVERVIEW
        ========
        The agent answers in two steps: a fast decision, then the full recipes.

        ================================================================================
        CACHING STRATEGY
        ================================================================================

        AGENT DECISION CACHING:
        -----------------------
        Keep a decision for ten minutes per session and query.

        RECIPE DATA CACHING:
        --------------------
        Keep recipe data for a day; it rarely changes.

        A paragraph of two lines
        over a rule is a paragraph.
        ---
        """

    @Test func underlinedHeadingsSplitANoteIntoSections() throws {
        let knowledge = try LocalBackendTests.knowledge(["agent.md": Self.guide])
        #expect(knowledge.passages.map(\.heading) == ["OVERVIEW", "AGENT DECISION CACHING", "RECIPE DATA CACHING"])
        let best = try #require(knowledge.search("how long should recipe data be cached?").first)
        #expect(best.passage.id == "agent.md#RECIPE DATA CACHING")
        #expect(best.passage.text.hasPrefix("Keep recipe data for a day"), "\(best.passage.text)")
        // The banner rows are decoration, the rule under a paragraph of two lines a rule.
        #expect(!knowledge.passages.contains { $0.text.contains("===") })
        #expect(best.passage.text.hasSuffix("over a rule is a paragraph.\n---"), "\(best.passage.text)")
    }

    /// A plain-text handbook names its parts with a line of capitals ending in a colon, not
    /// underlined: each is a section under the title, where the whole handbook was one. A line
    /// of prose ending in a colon ("Steps:") or with text after the colon stays text.
    @Test func aLineOfCapitalsEndingInAColonIsASectionOfItsOwn() throws {
        let handbook = """
            ON-CALL HANDBOOK
            ================

            PAGING RULES:
            A page at severity 1 is acknowledged within five minutes; severity 2 within thirty.

            ESCALATION:
            If the primary does not acknowledge, the secondary is paged after ten minutes.

            Steps:
            NOTE: write it down.
            HANDOVER:
            Mondays at 10:00, with the open incidents in the handover doc.
            """
        let knowledge = try LocalBackendTests.knowledge(["oncall.md": handbook])
        #expect(knowledge.passages.map(\.heading) == ["PAGING RULES", "ESCALATION"])
        #expect(knowledge.passages.last?.text.hasSuffix("Steps:\nNOTE: write it down.\nHANDOVER:\nMondays at 10:00, with the open incidents in the handover doc.") == true)
        #expect(try Self.best("what are the paging rules?", in: ["oncall.md": handbook]) == "oncall.md#PAGING RULES")
        // The title above still says what each part is about.
        #expect(try Self.best("on-call escalation", in: ["oncall.md": handbook, "other.md": "# Escalation\n\nAsk the customer first.\n"]) == "oncall.md#ESCALATION")
    }

    /// A plain note's first line over its underlined sections is its title, and names them:
    /// "weekly sync agenda" finds the agenda, not the note's opening (title and tags). A first
    /// line that is a sentence stays the opening's text.
    @Test func aPlainNotesFirstLineIsTheTitleOfItsSections() throws {
        let meetings = "Weekly sync\n#meetings #team\n\nAgenda\n------\n1. Incidents from last week\n2. Roadmap status\n\nAction items\n------------\n- Alice: renew the certificate.\n"
        let knowledge = try LocalBackendTests.knowledge(["meetings.md": meetings])
        #expect(knowledge.passages.map(\.heading) == ["Weekly sync", "Agenda", "Action items"])
        #expect(try Self.best("what's on the weekly sync agenda?", in: ["meetings.md": meetings]) == "meetings.md#Agenda")
        let sentence = "Appointments are every six months.\n\nPhone\n-----\n555-0142\n"
        #expect(try LocalBackendTests.knowledge(["dentist.md": sentence]).passages.map(\.heading) == ["dentist", "Phone"])
    }

    @Test func aLineOfTagsIsNoHeadingAndClosingHashesAreNotTheHeadings() throws {
        let knowledge = try LocalBackendTests.knowledge(["log.md": "# Standup ##\n\n#meeting #team\nShip the parser on Friday.\n"])
        #expect(knowledge.passages.map(\.heading) == ["Standup"])
        #expect(knowledge.passages.first?.text == "#meeting #team\nShip the parser on Friday.")
    }

    /// Two sections of the same words, "pause" in one's heading and in the other's text: the
    /// one named for it is about it, the other mentions it.
    @Test func aWordInAHeadingOutweighsTheSameWordInText() throws {
        let notes = """
            # Queue

            ## Hold

            Pause the queue; nothing new starts until you resume it.

            ## Pause

            Hold the queue; nothing new starts until you resume it.
            """
        #expect(try Self.best("how do I pause?", in: ["queue.md": notes]) == "queue.md#Pause")
    }

    /// Two guides under the same generic title: the file's name says which product each is about.
    @Test func theFilesNameSaysWhatItsSectionsAreAbout() throws {
        let files = [
            "timepoint.md": "# iOS Integration Guide\n\n## Costs\n\nA scene costs 5 credits, an image 2 more.\n",
            "friday.md": "# iOS Integration Guide\n\n## Costs\n\nEvery query costs what the model charges for its tokens.\n",
        ]
        #expect(try Self.best("what does a timepoint scene cost?", in: files) == "timepoint.md#Costs")
        #expect(try Self.best("how much does friday cost?", in: files) == "friday.md#Costs")
    }

    @Test func wordsWrittenApartFindTheWordWrittenAsOne() throws {
        let files = ["auth.md": "# Auth\n\n## Logout\n\nDelete both tokens from the keychain.\n\n## Setup\n\nCreate a test user with the admin token.\n"]
        #expect(try Self.best("how do I log out?", in: files) == "auth.md#Logout")
        #expect(try Self.best("how do I set up auth?", in: files) == "auth.md#Setup")
    }

    /// A number of one digit is a word of the question: "phase 3" is not any phase.
    @Test func aOneDigitNumberIsSearchedFor() throws {
        let roadmap = (1...5).map { "## Phase \($0)\n\nWork planned for this phase of the roadmap.\n" }.joined(separator: "\n")
        #expect(try Self.best("what is phase 3?", in: ["roadmap.md": "# Roadmap\n\n" + roadmap]) == "roadmap.md#Phase 3")
    }

    /// Words of the question side by side in a heading name the section: "phase 2" is Phase 2's,
    /// though the section before it says more about phase 2 and the roadmap in passing.
    @Test func wordsSideBySideInAHeadingNameTheSection() throws {
        let roadmap = """
            # Codex roadmap

            ## Phase 0: Foundation

            Contracts first. Phase 2 of the roadmap depends on them, and so does phase 1: the codex roadmap keeps each phase small.

            ## Phase 2: Admin actions

            Request and stop workers from the app, each with a confirmation.
            """
        #expect(try Self.best("what happens in phase 2 of the codex roadmap?", in: ["roadmap.md": roadmap]) == "roadmap.md#Phase 2: Admin actions")
    }

    @Test func aDoubledConsonantBeforeAnEndingIsOne() {
        #expect(Stemmer.stem("running") == Stemmer.stem("run"))
        #expect(Stemmer.stem("stopped") == Stemmer.stem("stop"))
        #expect(Stemmer.stem("planning") == Stemmer.stem("plans"))
        // A word that ends doubled keeps it.
        #expect(Stemmer.stem("added") == Stemmer.stem("add"))
        #expect(Stemmer.stem("stuffed") == Stemmer.stem("stuff"))
        #expect(Stemmer.stem("falling") == Stemmer.stem("fall"))
    }
}

import Foundation
import ReceptionCore
import Testing
@testable import ReceptionLocal

/// Knowledge files people write hold commands in fenced code and options in lists; an answer
/// quotes them as they are laid out, not run together into one line of sentences.
@Suite("Local answers keep code blocks and lists")
struct PassageLayoutTests {
    static let setup = """
        # Setup

        ## Installing the tool

        Install it with the package manager. Then check the version.

        ```sh
        # install
        apt-get install frobnicator
        frob --version
        ```

        The version should be 2 or later. Older ones lack the cache.

        ## Options

        The options are:
        - `--fast` skips the checks.
        - `--slow` runs them twice,
          and reports both.

        Both can be set in the config file.
        """

    static func answer(_ question: String) async throws -> BackendResult {
        let knowledge = try LocalBackendTests.knowledge(["setup.md": setup])
        let backend = LocalBackend(knowledge: knowledge, usesBuiltInKnowledge: false, settings: .init(stepDelay: .milliseconds(1)))
        let events = try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: question, trustLevel: 1)))
        return try #require(LocalBackendTests.result(events))
    }

    @Test func aCommentInACodeBlockIsNoHeading() throws {
        let knowledge = try LocalBackendTests.knowledge(["setup.md": Self.setup])
        #expect(knowledge.passages.map(\.heading) == ["Installing the tool", "Options"], "\(knowledge.passages.map(\.heading))")
    }

    @Test func aCommandIsQuotedAsACodeBlockWithItsLines() async throws {
        let response = try await Self.answer("how do I install the tool?")
        #expect(response.text.contains("Then check the version.\n\n```sh\n# install\napt-get install frobnicator\nfrob --version\n```"),
                "\(response.text)")
        #expect(response.findings.first?.content == "The version should be 2 or later. Older ones lack the cache.",
                "\(response.findings.map(\.content))")
    }

    @Test func aListIsQuotedWholeAnItemALine() async throws {
        let response = try await Self.answer("what are the options?")
        #expect(response.text.hasPrefix("The options are:\n- `--fast` skips the checks.\n- `--slow` runs them twice, and reports both."),
                "\(response.text)")
        #expect(response.findings.first?.content == "Both can be set in the config file.", "\(response.findings.map(\.content))")
    }

    /// A summary of two units with a code block third takes the block: the command is more
    /// of the answer than the sentence after it.
    @Test func aCutBeforeACodeBlockTakesTheBlock() {
        let passage = PassageUnits("One. Two.\n\n~~~\nrun it\n~~~\n\nThree.")
        #expect(passage.units.map(\.kind) == [.sentence, .sentence, .code, .sentence])
        #expect(PassageUnits.join(passage.prefix(2)) == "One. Two.\n\n~~~\nrun it\n~~~")
        // An unclosed fence runs to the end, as Markdown reads it.
        #expect(PassageUnits("Run:\n```\nmake\n").units.last == .init(text: "```\nmake\n", kind: .code, startsParagraph: true))
    }

    /// Front matter and HTML comments are for the writer, not the reader: "--- title: …" was
    /// quoted under a heading that does not exist, and a comment mid-sentence was quoted.
    @Test func frontMatterAndCommentsAreNotQuoted() throws {
        let text = "---\ntitle: Pancakes\nserves: 4\n---\n# Pancakes\n\nAsk your manager<!-- and finance -->.\n<!--\ndraft\n-->\n\n```html\n<!-- kept in code -->\n```\n"
        let knowledge = try LocalBackendTests.knowledge(["p.md": text])
        #expect(knowledge.passages.map(\.heading) == ["Pancakes"])
        #expect(knowledge.passages.first?.text == "Ask your manager.\n\n```html\n<!-- kept in code -->\n```", "\(knowledge.passages.map(\.text))")
    }

    /// A table's rows stay rows, and a nested step stays under its step.
    @Test func tablesAndNestedStepsKeepTheirLines() {
        let passage = PassageUnits("Where we stay:\n\n| day | city |\n|---|---|\n| 1 | Tokyo |\n\n1. Book.\n   1. Pay the deposit.\n2. Go.")
        #expect(passage.units.map(\.kind) == [.sentence, .table, .listItem, .listItem, .listItem])
        #expect(PassageUnits.join(passage.prefix(1)) == "Where we stay:\n\n| day | city |\n|---|---|\n| 1 | Tokyo |")
        #expect(PassageUnits.join(passage.units.dropFirst(2)) == "1. Book.\n   1. Pay the deposit.\n2. Go.")
    }

    /// The steps of a procedure, with a command under a step, are quoted to the last step.
    @Test func aProcedureIsQuotedToItsLastStep() {
        let passage = PassageUnits("1. Tag it:\n   ```\n   git tag v1\n   ```\n2. Build.\n3. Ship:\n   ```\n   ship v1\n   ```\n4. Tell the team.")
        #expect(PassageUnits.join(passage.prefix(3)).hasSuffix("4. Tell the team."))
    }

    /// A finding cut short says how much more its section holds, and what: cut without a
    /// word, two steps read as the whole procedure. Below a code block, on a line of its own.
    @Test func aCutFindingSaysWhatMoreItsSectionHolds() {
        let steps = PassageUnits("Do this:\n\n```\nmake\n```\n\n1. One.\n2. Two.\n\nDone. Really.")
        let shown = steps.prefix(1)
        #expect(PassageUnits.join(shown) == "Do this:\n\n```\nmake\n```")
        #expect(Answerer.moreInTheSection(Array(steps.units.dropFirst(shown.count)), after: shown)
                == "\n\n(4 more in the section: 2 sentences and 2 list items.)")
        let prose = PassageUnits("One. Two. Three.")
        #expect(Answerer.moreInTheSection(Array(prose.units.dropFirst(1)), after: prose.prefix(1)) == " (2 more sentences in the section.)")
    }

    /// A follow-up to a section another file also has ("Install") names its file, and sent
    /// back it answers from that section, not from whichever section its words rank first.
    @Test func aFollowUpToASectionComesBackToThatSection() async throws {
        let knowledge = try LocalBackendTests.knowledge([
            "README.md": "# Tidepool\n\n## Install\n\nBuild it with make. It needs Go and a database, and the database needs a user.\n",
            "snap.md": "# Snap\n\n## Install\n\nRun pipx install snap for tidepool.\n\n## Usage\n\nSnap nightly.\n",
        ])
        #expect(knowledge.sharedHeadings == ["install"])
        let backend = LocalBackend(knowledge: knowledge, usesBuiltInKnowledge: false, settings: .init(stepDelay: .milliseconds(1)))
        func ask(_ text: String) async throws -> BackendResult {
            try #require(LocalBackendTests.result(try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: text, trustLevel: 1)))))
        }
        let first = try await ask("how do I install snap?")
        #expect(first.text.contains("pipx install snap"), "\(first.text)")
        #expect(first.followups.plainFollowups.contains("Tell me more about \"Install\" in README.md"), "\(first.followups)")
        let followed = try await ask("Tell me more about \"Install\" in README.md")
        #expect(followed.text.hasPrefix("Build it with make."), "\(followed.text)")
    }

    /// "I found nothing" is not said as having looked through everything when some files of
    /// the folder could not be read: one of them may hold the answer.
    @Test func nothingFoundWithUnreadFilesSaysSo() {
        let composed = Answerer.compose(query: "harbour code", matches: [], alreadySaid: [], unreadFiles: 1)
        #expect(composed.outcome == .complete && composed.summary.hasSuffix("One file of the knowledge folder could not be read (named when it started), and may hold it."))
        #expect(Answerer.compose(query: "harbour code", matches: [], alreadySaid: []).outcome == .saturated)
    }
}

import Foundation
import ReceptionTestSupport
import Testing
import ReceptionCore
@testable import ReceptionLocal

@Suite("Embedded local backend")
struct LocalBackendTests {
    static func knowledge(_ files: [String: String]) throws -> KnowledgeBase {
        let directory = Scratch.root.appendingPathComponent("reception-kb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return try KnowledgeBase(directory: directory)
    }

    static func events(_ stream: BackendEventStream) async throws -> [BackendEvent] {
        var events: [BackendEvent] = []
        for try await event in stream { events.append(event) }
        return events
    }

    static func result(_ events: [BackendEvent]) -> BackendResult? {
        events.compactMap { if case .result(let r) = $0 { r } else { nil } }.first
    }

    let fast = LocalBackend.Settings(stepDelay: .milliseconds(1))

    /// A FIFO among the knowledge files gave Foundation's "You don't have
    /// permission" (NSCocoaErrorDomain 257); it is now named for what it is, with its path,
    /// and never opened (it would block). Beside a file that reads, it is skipped and named,
    /// so one odd entry does not stop the folder from answering; alone, it is the error.
    @Test func aFIFOInTheKnowledgeFolderIsNamedPlainlyAndSkipped() throws {
        let directory = Scratch.root.appendingPathComponent("reception-kb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fifo = directory.appendingPathComponent("b.md").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let said = "\(directory.standardizedFileURL.path)/b.md: is a named pipe (FIFO), not a regular file"
        do {
            _ = try KnowledgeBase(directory: directory)
            Issue.record("a FIFO was read as knowledge")
        } catch {
            #expect("\(error)" == said)
        }
        try "# A\nhello\n".write(to: directory.appendingPathComponent("a.md"), atomically: true, encoding: .utf8)
        try Data([0x63, 0x61, 0x66, 0xE9, 0x0A]).write(to: directory.appendingPathComponent("latin1.md"))
        // A folder named like a file is a folder: read inside, not named as a file that failed.
        let folder = directory.appendingPathComponent("sub.md")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "# In\nthe dir note\n".write(to: folder.appendingPathComponent("inner.md"), atomically: true, encoding: .utf8)
        let knowledge = try KnowledgeBase(directory: directory)
        #expect(knowledge.passages.map(\.file) == ["a.md", "sub.md/inner.md"])
        #expect(knowledge.skipped.count == 2 && knowledge.skipped[0] == said && knowledge.skipped[1].contains("latin1.md: is not UTF-8"),
                "\(knowledge.skipped)")
        let notice = try #require(LocalPlugin.skippedNotice(knowledge.skipped))
        #expect(notice.hasPrefix("skipped 2 knowledge files that cannot be read; the others answer:\n  ") && notice.contains("b.md"), "\(notice)")
    }

    /// `--knowledge ~/notes` where ~/notes is a link to the folder (a synced folder, say): its
    /// files are read from where it points. Listed from the link itself, none were found.
    @Test func aKnowledgeFolderReachedThroughALinkIsRead() throws {
        let directory = Scratch.root.appendingPathComponent("reception-kb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "# Wifi\nThe password is on the fridge.\n".write(to: directory.appendingPathComponent("wifi.md"), atomically: true, encoding: .utf8)
        let link = Scratch.root.appendingPathComponent("reception-kb-link-\(UUID().uuidString)")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: directory)
        #expect(try KnowledgeBase(directory: link).passages.map(\.file) == ["wifi.md"])
    }

    /// A link inside the notes to a folder elsewhere (~/notes/work → a synced folder) is
    /// followed, its files named through the link (it was skipped, without a word); a link to
    /// a folder of the notes themselves, or up to one holding them, is not, so nothing is
    /// read twice and nothing for ever.
    @Test func aLinkToAFolderElsewhereIsFollowedOnce() throws {
        let directory = Scratch.root.appendingPathComponent("reception-kb-\(UUID().uuidString)")
        let elsewhere = Scratch.root.appendingPathComponent("reception-kb-synced-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("home"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try "# Wifi\nThe password is on the fridge.\n".write(to: directory.appendingPathComponent("home/wifi.md"), atomically: true, encoding: .utf8)
        try "# Deploys\nDeploys go out on Tuesdays.\n".write(to: elsewhere.appendingPathComponent("deploys.md"), atomically: true, encoding: .utf8)
        let manager = FileManager.default
        try manager.createSymbolicLink(at: directory.appendingPathComponent("work"), withDestinationURL: elsewhere)
        try manager.createSymbolicLink(at: directory.appendingPathComponent("again"), withDestinationURL: directory.appendingPathComponent("home"))
        try manager.createSymbolicLink(at: directory.appendingPathComponent("up"), withDestinationURL: Scratch.root)
        try manager.createSymbolicLink(at: elsewhere.appendingPathComponent("loop"), withDestinationURL: elsewhere)
        let knowledge = try KnowledgeBase(directory: directory)
        #expect(knowledge.passages.map(\.file) == ["home/wifi.md", "work/deploys.md"])
        #expect(knowledge.search("when do deploys go out").first?.passage.file == "work/deploys.md")
    }

    /// Notes named `.markdown` are notes; a hidden folder (an editor's `.obsidian`, `.git`) is not.
    @Test func markdownFilesAreReadAndHiddenFoldersAreNot() throws {
        let directory = Scratch.root.appendingPathComponent("reception-kb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(".obsidian"), withIntermediateDirectories: true)
        try "# Plants\nWater the fern on Sundays.\n".write(to: directory.appendingPathComponent("garden.markdown"), atomically: true, encoding: .utf8)
        try "# Workspace\nlayout state\n".write(to: directory.appendingPathComponent(".obsidian/workspace.md"), atomically: true, encoding: .utf8)
        #expect(try KnowledgeBase(directory: directory).passages.map(\.file) == ["garden.markdown"])
    }

    /// A file over the limit is skipped like any unreadable one: a 58 MB one-line file took
    /// 48 seconds and 2.4 GB to index, then was given whole as the answer.
    @Test func aFileOverTheSizeLimitIsSkipped() throws {
        let directory = Scratch.root.appendingPathComponent("reception-kb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "# A\nhello\n".write(to: directory.appendingPathComponent("a.md"), atomically: true, encoding: .utf8)
        try Data(repeating: 0x61, count: KnowledgeBase.fileSizeLimit + 1).write(to: directory.appendingPathComponent("dump.md"))
        let knowledge = try KnowledgeBase(directory: directory)
        #expect(knowledge.passages.map(\.file) == ["a.md"] && knowledge.skipped.first?.contains("dump.md: is 4194305 bytes") == true,
                "\(knowledge.skipped)")
    }

    /// A note that is one long paragraph without a full stop (just under the size limit) and a
    /// log pasted into a code block are quoted in part, saying how much more there is: both
    /// were quoted whole, megabytes of it to the terminal. The block keeps its closing fence.
    @Test func aVeryLongSentenceOrBlockIsQuotedInPart() async throws {
        let words = String(repeating: "the tidepool sync keeps every bucket mirrored ", count: 60_000)
        let log = (1...2_000).map { "worker \($0) restarted after a tidepool timeout" }.joined(separator: "\n")
        let kb = try Self.knowledge([
            "dump.md": "# Tidepool sync\n" + words + "\n",
            "log.md": "# Tidepool timeouts\n```\n" + log + "\n```\n",
        ])
        let backend = LocalBackend(knowledge: kb, settings: fast)
        func ask(_ query: String) async throws -> BackendResult {
            try #require(Self.result(try await Self.events(backend.submit(ReceptionRequest(text: query, trustLevel: 1)))))
        }
        let sync = try await ask("how does the tidepool sync mirror buckets?")
        let all = ([sync.text] + sync.findings.map(\.content)).joined(separator: "\n")
        #expect(all.count < 20_000, "\(all.count) characters")
        #expect(sync.text.contains("(cut here: ") && sync.text.contains(" more characters)"), "\(sync.text.prefix(200))…\(sync.text.suffix(200))")
        #expect(sync.findings.first?.content == Answerer.quotedInPart, "not \"the whole of this section\": \(sync.findings.map(\.content))")
        let timeouts = try await ask("which worker restarted after a tidepool timeout?")
        let quoted = ([timeouts.text] + timeouts.findings.map(\.content)).first { $0.contains("worker 1 restarted") } ?? ""
        #expect(quoted.count < 6_000 && quoted.contains("more lines)\n```"), "\(quoted.suffix(300))")
    }

    /// A heading with no text of its own ("## Contacts" over "### Alice") is found through
    /// the sections under it: they are searched with every heading above them, as a section
    /// is with its document's title.
    @Test func aSectionIsFoundByTheHeadingsAboveIt() throws {
        let kb = try Self.knowledge(["people.md": "# People\n\n## Contacts\n\n### Alice\n\nPhone 555 0100, mornings only.\n\n## Birthdays\n\n### Bob\n\nThe fourth of May.\n"])
        #expect(kb.search("who is in my contacts?").first?.passage.heading == "Alice")
        #expect(kb.search("whose birthdays do I know?").first?.passage.heading == "Bob")
        #expect(!kb.search("contacts").contains { $0.passage.heading == "Bob" }, "a heading above one section is not another's")
    }

    @Test func aFileGivenAsTheKnowledgeFolderIsNamedAsAFile() throws {
        let file = Scratch.root.appendingPathComponent("reception-kb-\(UUID().uuidString).jsonl")
        try "{}\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: LocalBackendError.knowledgeNotAFolder(file.standardizedFileURL.path)) { try KnowledgeBase(directory: file) }
        let missing = file.deletingLastPathComponent().appendingPathComponent("no-such-folder-\(UUID().uuidString)")
        #expect(throws: LocalBackendError.knowledgeFolderMissing(missing.standardizedFileURL.path)) { try KnowledgeBase(directory: missing) }
    }

    @Test func trustZeroReturnsAPlanAndApproveRunsIt() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: fast)
        let request = ReceptionRequest(text: "how do trust levels and plans work?", trustLevel: 0)
        let submitted = try await Self.events(backend.submit(request))
        #expect(submitted.first == .accepted(taskID: request.id, status: .awaitingApproval))
        guard case .planAwaitingApproval(let plan)? = submitted.last else { Issue.record("no plan"); return }
        #expect(plan.taskID == request.id && plan.steps == [PlanStep("instrument", detail: "knowledge_search")])
        let run = try await Self.events(backend.approve(taskID: request.id))
        let statuses = run.compactMap { if case .status(_, let s) = $0 { s } else { nil } }
        #expect(statuses == [.running, .complete])
        #expect(run.filter { if case .progress = $0 { true } else { false } }.count == 2)
        #expect(Self.result(run)?.outcome == .complete)
        await #expect(throws: BackendError.self) { try await backend.reject(taskID: request.id) }
    }

    @Test func outcomesFollowRetrieval() async throws {
        let kb = try Self.knowledge([
            "museum.md": "# Opening hours\nThe city museum opens at nine on Sundays and closes at five.\n",
            "leaflet.md": "# Sunday closures\nThe city museum does not open on Sundays during winter.\n",
            "garden.md": "# Roses\nRoses need six hours of sun and deep watering once a week.\n",
        ])
        let backend = LocalBackend(knowledge: kb, settings: fast)
        func ask(_ query: String) async throws -> BackendResult {
            try #require(Self.result(try await Self.events(backend.submit(ReceptionRequest(text: query, trustLevel: 1)))))
        }
        let roses = try await ask("how much sun do roses need?")
        #expect(roses.outcome == .complete)
        #expect(roses.findings.first?.source == "garden.md#Roses", "the answer's source stays: \(roses.findings)")
        #expect(roses.findings.first?.content == Answerer.wholeSectionAbove, "not the answer again: \(roses.findings)")
        #expect(roses.text.contains("six hours of sun"))
        #expect(try await ask("how much sun do roses need?").outcome == .saturated)
        let museum = try await ask("does the city museum open on sundays?")
        #expect(museum.outcome == .inconclusive)
        #expect(museum.discrepancy?.contains("does not open") == true)
        // Nothing in any file: said plainly, and sure of it (every file was searched), not
        // "bounded", which says a limit cut the search short and invites "continue".
        let unanswered = try await ask("should I take the train or fly to Seattle?")
        #expect(unanswered.outcome == .saturated && (unanswered.confidence ?? 0) >= 0.8, "\(unanswered.outcome) \(unanswered.confidence)")
        #expect(unanswered.text.contains("connect a real backend"))
        // A "continue" all the same gets a plain "no more", not the same answer again.
        let more = try await ask("continue")
        #expect(more.outcome == .saturated && more.text.contains("nothing more on that"), "\(more.text)")
        let again = try await ask("train or flight to Seattle, which one?")
        #expect(again.followups.interventions.contains { $0.type == .proactive }, "the same unanswered topic came back")
    }

    /// A greeting alone is greeted back with what this backend knows, not answered as a search
    /// that found nothing; a greeting with a question in it is still a question.
    @Test func aGreetingIsGreetedBackNotSearched() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: fast)
        func ask(_ query: String) async throws -> BackendResult {
            try #require(Self.result(try await Self.events(backend.submit(ReceptionRequest(text: query, trustLevel: 1)))))
        }
        let events = try await Self.events(backend.submit(ReceptionRequest(text: "hello", trustLevel: 1)))
        #expect(!events.contains { if case .progress = $0 { true } else { false } }, "nothing was searched: \(events)")
        for greeting in ["hello", "Hi there!", "good morning"] {
            let hello = try await ask(greeting)
            #expect(hello.text.hasPrefix("Hello. I am the local backend"), "\(greeting): \(hello.text)")
            // Small talk is not a task: no outcome for a soul to frame ("Here is the answer.")
            // and no confidence for it to hedge.
            #expect(hello.outcome == nil && hello.confidence == nil, "\(greeting): \(hello)")
            #expect(!hello.text.contains("found nothing") && hello.followups.plainFollowups == ["What can Reception do?"])
        }
        #expect(try await ask("thanks!").text == "You're welcome.")
        #expect(try await ask("ok bye").text.hasPrefix("Goodbye. /quit"), "the REPL goes on after a goodbye: it says how to leave")
        let question = try await ask("hi, can you book me a flight to Lisbon")
        #expect(!question.text.hasPrefix("Hello."), "\(question.text)")
    }

    @Test func atTrustZeroAGreetingIsAnsweredWithoutAPlan() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: fast)
        let greeted = try await Self.events(backend.submit(ReceptionRequest(text: "hello", trustLevel: 0)))
        #expect(!greeted.contains { if case .planAwaitingApproval = $0 { true } else { false } }, "\(greeted)")
        #expect(Self.result(greeted)?.text.hasPrefix("Hello. I am the local backend") == true, "\(greeted)")
        let asked = try await Self.events(backend.submit(ReceptionRequest(text: "hello, what can reception do?", trustLevel: 0)))
        #expect(asked.contains { if case .planAwaitingApproval = $0 { true } else { false } }, "a question still waits for approval: \(asked)")
        #expect(Self.result(asked) == nil)
    }

    @Test func cancelStopsARunningTask() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .seconds(5)))
        let request = ReceptionRequest(text: "what can reception do", trustLevel: 1)
        var received: [BackendEvent] = []
        for try await event in backend.submit(request) {
            received.append(event)
            if case .status(_, .running) = event { try await backend.cancel(taskID: request.id) }
        }
        guard case .failure(let failure)? = received.last else { Issue.record("no failure event: \(received)"); return }
        #expect(failure.cancelled)
        // Stopped inside the first 5-second step: no progress, no result.
        #expect(!received.contains { if case .progress = $0 { true } else { false } })
        #expect(!received.contains { if case .result = $0 { true } else { false } })
        await #expect(throws: BackendError.self, "a finished task is no longer running") { try await backend.cancel(taskID: request.id) }
    }

    @Test func interventionsAreGatedByTrustLevel() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: fast)
        let broad = ReceptionRequest(text: "tell me about everything?? and also what can you do?", trustLevel: 2)
        let response = try #require(Self.result(try await Self.events(backend.submit(broad))))
        let types = response.followups.interventions.map(\.type)
        #expect(types.contains(.pushback))
        #expect(!types.contains(.scoping) && !types.contains(.education), "level 2 shows only proactive and pushback")
    }
}

@Suite("Local answers")
struct LocalAnswerTests {
    @Test func aFileIntroductionListsWhatTheFileCovers() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        let events = try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: "what can reception do?", trustLevel: 1)))
        let response = try #require(LocalBackendTests.result(events))
        #expect(response.outcome == .complete)
        #expect(response.text.contains("- Intent classification"))
        #expect(response.text.contains("- Personalities from soul.md"))
        #expect(!response.followups.plainFollowups.contains { $0.contains("0.1.0") }, "version headings are no topics")
    }
}

extension LocalAnswerTests {
    /// A newcomer's first question speaks to the backend as "you".
    @Test func whatCanYouDoIsAQuestionAboutReception() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        for question in ["what can you do?", "hello, what can you do?"] {
            let events = try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: question, trustLevel: 1)))
            let response = try #require(LocalBackendTests.result(events))
            #expect(response.outcome != .bounded, "\(question): \(response.text.prefix(120))")
        }
    }

    /// Two passages that say compatible things ("needs no server" and
    /// "only knows its files") are no conflict; a newcomer's first answers must not look broken.
    @Test func compatiblePassagesAreNoConflict() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        let events = try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: "what does the local backend do?", trustLevel: 1)))
        let response = try #require(LocalBackendTests.result(events))
        #expect(response.outcome != .inconclusive, "\(response.discrepancy ?? "")")
        #expect(response.discrepancy == nil)
    }

    @Test func sentencesSharingAFewWordsAreNoDisagreement() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        let events = try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: "how do trust levels work?", trustLevel: 1)))
        let response = try #require(LocalBackendTests.result(events))
        #expect(response.outcome == .complete, "\(response.discrepancy ?? "")")
        #expect(response.text.contains("trust level 0"))
    }
}

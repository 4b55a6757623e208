import Foundation
import Testing
import ReceptionCore
@testable import ReceptionLocal

/// What the embedded backend says is one story: it never says it found nothing above a passage
/// it then shows, and what it offers next comes from the knowledge in use.
@Suite("Local answers say one thing")
struct LocalAnswerHonestyTests {
    static let notes = [
        "home.md": """
        # Home

        ## Bins

        Recycling and general waste are collected on alternate Tuesdays. Put them out on Monday evening;
        the garden bin goes out on the first Friday of the month.

        ## Boiler

        The boiler service is due every October. The engineer's number is in the kitchen drawer.
        """,
        "work.md": """
        # Work

        ## Expenses

        Submit expenses by the 25th of each month through the portal, with receipts attached.
        """,
    ]

    static func ask(_ backend: LocalBackend, _ question: String) async throws -> BackendResult {
        try #require(LocalBackendTests.result(try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: question, trustLevel: 1)))))
    }

    @Test func aQuestionAboutTheBinsIsAnsweredFromTheNotes() async throws {
        let backend = LocalBackend(knowledge: try LocalBackendTests.knowledge(Self.notes), settings: .init(stepDelay: .milliseconds(1)))
        let answer = try await Self.ask(backend, "when do the bins go out")
        #expect(answer.outcome == .complete, "\(answer.text)")
        #expect(answer.text.contains("Monday evening"), "\(answer.text)")
        #expect(!answer.text.contains("found nothing"), "\(answer.text)")
    }

    /// Only a weak match: the closest passage, named as the closest, at a confidence the souls
    /// hedge ("please double-check it"), never "I found nothing" followed by that passage.
    @Test func aWeakMatchIsTheClosestPassageNotNothing() async throws {
        let backend = LocalBackend(knowledge: try LocalBackendTests.knowledge(Self.notes), settings: .init(stepDelay: .milliseconds(1)))
        let answer = try await Self.ask(backend, "boiler service radiators")
        #expect(!answer.text.contains("found nothing"), "\(answer.text)")
        #expect(answer.text.hasPrefix("The closest I have is home.md (Boiler): "), "\(answer.text)")
        #expect((answer.confidence ?? 1) < 0.5, "\(answer.confidence ?? -1)")
    }

    /// Whatever the question, "found nothing" comes with no findings: the two never meet.
    @Test(arguments: ["is my data kept private?", "when do the bins go out", "what is the capital of peru?",
                      "does reception keep my messages?", "how do I restart the boiler?", "can it work offline?"])
    func foundNothingNeverComesWithFindings(_ question: String) async throws {
        for backend in [LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1))),
                        LocalBackend(knowledge: try LocalBackendTests.knowledge(Self.notes), settings: .init(stepDelay: .milliseconds(1)))] {
            let answer = try await Self.ask(backend, question)
            if answer.text.contains("found nothing") {
                #expect(answer.findings.isEmpty, "\(question): \(answer.findings)")
            }
        }
    }

    /// Someone asking their own notes is offered their notes' topics, never a question about Reception.
    @Test func nothingFoundInYourNotesOffersYourNotesTopics() async throws {
        let backend = LocalBackend(knowledge: try LocalBackendTests.knowledge(Self.notes), settings: .init(stepDelay: .milliseconds(1)))
        let answer = try await Self.ask(backend, "what is the capital of peru?")
        #expect(answer.text.contains("found nothing"))
        let offered = answer.followups.plainFollowups
        #expect(!offered.isEmpty && !offered.contains { $0.contains("Reception") }, "\(offered)")
        // Each a section's heading, quoted as written (lowercased into the sentence, a heading
        // such as "Decisions stay yours" read as broken English).
        #expect(offered.allSatisfy { question in ["Bins", "Boiler", "Expenses"].contains { question == "Tell me more about \"\($0)\"" } },
                "\(offered)")
        let more = try await Self.ask(backend, "continue")
        #expect(!more.followups.plainFollowups.contains { $0.contains("Reception") }, "\(more.followups.plainFollowups)")
    }

    /// "tell me more" goes on with the last question's topic, past what was said (searched
    /// as words, it found nothing: "I found nothing in my knowledge"), until there is nothing
    /// more on it, which is said.
    @Test func tellMeMoreGoesOnWithTheLastTopic() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        let first = try await Self.ask(backend, "how do trust levels work?")
        #expect(first.text.contains("trust level"), "\(first.text)")
        var said = [first.text]
        for _ in 0..<8 {
            let more = try await Self.ask(backend, "tell me more")
            if more.text.contains("nothing more on that") { break }
            #expect(!more.text.contains("found nothing"), "\(more.text)")
            #expect(!said.contains(more.text), "the same answer again: \(more.text)")
            #expect(more.text.lowercased().contains("trust") || more.text.lowercased().contains("plan"), "off the topic: \(more.text)")
            said.append(more.text)
        }
        #expect(said.count >= 2, "at least one more passage on trust levels")
        #expect(try await Self.ask(backend, "go on").text.contains("nothing more on that"))
        // A question with a subject of its own is searched as itself.
        #expect(try await Self.ask(backend, "tell me more about souls").text.contains("soul"))
    }

    /// The built-in knowledge is about Reception: there the offer is about Reception.
    @Test func nothingFoundInTheBuiltInKnowledgeOffersWhatReceptionDoes() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        let answer = try await Self.ask(backend, "what is the capital of peru?")
        #expect(answer.followups.plainFollowups == ["What can Reception do?"], "\(answer.followups.plainFollowups)")
    }

    /// "How does X work" asks about X: the section about souls answers it, not a passage that
    /// happens to say "working".
    @Test func howDoesSomethingWorkIsSearchedForTheThing() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        for question in ["how do souls work?", "How does a soul work", "how do personalities work", "explain how souls work"] {
            let answer = try await Self.ask(backend, question)
            #expect(answer.text.contains("soul.md"), "\(question): \(answer.text)")
        }
        // No subject but a pointer: to the built-in knowledge, the thing being used.
        for question in ["how does it work?", "what does it do?", "what is this?"] {
            let answer = try await Self.ask(backend, question)
            #expect(answer.text.hasPrefix("What Reception can do for you today."), "\(question): \(answer.text)")
        }
        let classifier = try await Self.ask(backend, "how does the classifier work?")
        #expect(classifier.text.contains("five intents"), "the section on intent classification: \(classifier.text)")
        #expect(KnowledgeBase.queryTerms("how do i get to work") == ["work"], "the only term stays")
        #expect(KnowledgeBase.queryTerms("how does work life balance work") == Set(KnowledgeBase.terms("work life balance")))
        #expect(KnowledgeBase.queryTerms("what will change at work") == Set(KnowledgeBase.terms("change work")), "no how")
        #expect(KnowledgeBase.queryTerms("how long does it take to get to work") == ["long", "take", "work"], "another question")
        #expect(KnowledgeBase.queryTerms("tell me how trust works") == ["trust"])
    }

    /// What a newcomer asks the built-in knowledge in their first hour, and the words the
    /// answer must hold.
    @Test(arguments: [
        ("how do I write my own soul?", "soul new"),
        ("how do I use my own notes?", "Any folder of Markdown files"),
        ("how do I connect to ollama?", "--backend ollama"),
        ("where is my conversation history stored?", "reception logs"),
        ("how do souls work?", "soul.md"),
    ])
    func aNewcomersQuestionIsAnsweredFromItsSection(question: String, expected: String) async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        let answer = try await Self.ask(backend, question)
        #expect(answer.text.contains(expected), "\(question): \(answer.text)")
    }

    /// "What I found" under an answer holds what the answer did not already say: the summarised
    /// passage's finding is the rest of it, or there is none when the summary said it all.
    @Test(arguments: ["how does trust work?", "when do the bins go out", "what can you do?", "how do souls work?"])
    func theFindingsDoNotRepeatTheAnswer(_ question: String) async throws {
        for backend in [LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1))),
                        LocalBackend(knowledge: try LocalBackendTests.knowledge(Self.notes), settings: .init(stepDelay: .milliseconds(1)))] {
            for _ in 0..<2 {  // the second time the answer is the saturated repeat
                let answer = try await Self.ask(backend, question)
                for finding in answer.findings where finding.content != Answerer.wholeSectionAbove {
                    #expect(finding.source != nil, "every finding names its passage")
                    let sentence = try #require(Answerer.sentences(finding.content).first)
                    #expect(!answer.text.contains(sentence), "\(question): \(finding.content) is in the answer: \(answer.text)")
                }
            }
        }
        let bins = try await Self.ask(LocalBackend(knowledge: try LocalBackendTests.knowledge(Self.notes),
                                                   settings: .init(stepDelay: .milliseconds(1))), "when do the bins go out")
        #expect(bins.text.contains("garden bin"), "the whole Bins section is the answer: \(bins.text)")
    }

    @Test func aQuestionOverTwoLinesIsTheSameQuestion() async throws {
        func fresh() throws -> LocalBackend {
            LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1)))
        }
        let oneLine = try await Self.ask(try fresh(), "what can you do?")
        let twoLines = try await Self.ask(try fresh(), "what can\nyou do?")
        #expect(!oneLine.text.contains("found nothing") && twoLines.text == oneLine.text, "\(twoLines.text)")
    }

    @Test func shortPluralsAndThirdPersonsMeetTheirStems() {
        #expect(KnowledgeBase.terms("bins goes days") == ["bin", "go", "day"])
        #expect(KnowledgeBase.terms("this plus bus") == ["plus", "bus"], "'this' is a stopword; -us words keep their s")
        #expect(Set(KnowledgeBase.terms("classifier classifiers classification classified classifies")) == ["classify"])
        #expect(KnowledgeBase.terms("notes files boxes wishes classes plane") == ["note", "file", "box", "wish", "class", "plane"],
                "a word's own e stays where it makes the word; \"notes\" is not the stopword \"not\"")
        #expect(Set(KnowledgeBase.terms("change changes changed changing")) == ["chang"])
        #expect(Set(KnowledgeBase.terms("message messages")).count == 1 && Set(KnowledgeBase.terms("cache caches")).count == 1)
        // "how do I configure it?" finds "## Configuration"; "which databases?" a database.
        #expect(Set(KnowledgeBase.terms("configure configuration configurations")).count == 1)
        #expect(Set(KnowledgeBase.terms("install installation")).count == 1)
        #expect(Set(KnowledgeBase.terms("database databases")).count == 1 && Set(KnowledgeBase.terms("case cases")).count == 1)
    }
}

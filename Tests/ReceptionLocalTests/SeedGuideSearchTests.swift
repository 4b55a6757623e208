import Foundation
import ReceptionTestSupport
import Testing
@testable import ReceptionLocal

/// The local backend on Markdown people wrote: the five integration guides this project was
/// founded on (third-party text, read from `../shared/seeds`), as a user's knowledge folder,
/// asked the questions of `Tests/Corpora/local-questions.tsv`. A floor on how many find an
/// answering section first, so that a ranking change that costs real notes shows here.
@Suite("Questions about people's guides find the answering section", .needsShared("seeds"))
struct SeedGuideSearchTests {
    /// The seeds' files under the names a user would give them (the seeds' README names each).
    static let names = [
        "000_aaec43082483f548.txt": "loop-symphony.md", "001_4eac57d6c20313cd.txt": "friday.md",
        "002_40303fb717409a57.txt": "timepoint.md", "003_b5cb67eb753c2209.txt": "codex.md",
        "004_9010896671e48a78.txt": "loomi.md",
    ]

    @Test func mostQuestionsFindTheirSectionFirst() throws {
        let folder = Scratch.root.appendingPathComponent("reception-seeds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (seed, name) in Self.names {
            try FileManager.default.copyItem(at: SharedData.url("seeds/\(seed)"), to: folder.appendingPathComponent(name))
        }
        let knowledge = try KnowledgeBase(directory: folder)
        let table = try String(contentsOf: SharedData.repository.appendingPathComponent("Tests/Corpora/local-questions.tsv"), encoding: .utf8)
        var found: [String: (first: Int, asked: Int)] = [:]
        for line in table.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t").map(String.init)
            try #require(fields.count == 3, "\(line)")
            let answering = Set(fields[2].split(separator: "|").map { $0.replacingOccurrences(of: " § ", with: "#") })
            let first = knowledge.search(fields[1]).first?.passage.id
            found[fields[0], default: (0, 0)].asked += 1
            if let first, answering.contains(first) { found[fields[0]]!.first += 1 }
        }
        print("seed guides, answering section first: tuned \(found["tuned"]!.first) of \(found["tuned"]!.asked), confirm \(found["confirm"]!.first) of \(found["confirm"]!.asked)")
        // 24 of 42 and 16 of 32 before underlined headings, heading weight, file names,
        // joined words, doubled consonants, one-digit numbers and a heading's word pairs
        // ([local.md](../../docs/local.md)).
        #expect(found["tuned"]!.first >= 32)
        #expect(found["confirm"]!.first >= 24)
    }
}

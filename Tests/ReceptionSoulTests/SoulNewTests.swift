import Foundation
import Testing
import ReceptionTestSupport
@testable import ReceptionSoul

/// `reception soul new NAME` writes a starting file that always passes its own lint, or says
/// why it will not.
@Suite("soul new", .onTheCPULane)
struct SoulNewTests {
    static let awkwardNames = [
        "Nova",
        #"Say "hi" Bob"#,
        "Agent: Smith",
        "a: b: c",
        "#hashtag",
        "Number #1",
        "- dash",
        "-leading",
        "? question",
        "[brackets]",
        "{braces}",
        "*star",
        "&anchor",
        "!tag",
        "%percent",
        "@at",
        "`tick`",
        "| pipe",
        "> greater",
        #"back\slash \n not a newline"#,
        "it's",
        "null",
        "~",
        "true",
        "1.5",
        "Zoë Ångström",
        "日本語の魂",
        "Ça va 😀",
        "Line\u{2028}separator",
        "<!-- not a comment",
        "```code",
        "---",
        "name: Eve",
        String(repeating: "Long name ", count: 8).trimmingCharacters(in: .whitespaces),
    ]

    /// A name longer than a soul uses (80 characters) would be cut in the file written.
    @Test func aNameTooLongToUseIsRefused() {
        #expect { try SoulTemplate.check(name: String(repeating: "Very long name ", count: 40)) } throws: { error in
            "\(error)" == "the name is 600 characters; a soul's name is at most 80"
        }
    }

    @Test(arguments: awkwardNames)
    func anAwkwardNameGivesAFileThatLintsCleanAndKeepsTheName(_ name: String) throws {
        try SoulTemplate.check(name: name)
        let text = SoulTemplate.newSoul(name: name)
        let diagnostics = SoulLinter.lint(text: text, fileName: "new.md")
        #expect(diagnostics.isEmpty, "\(name.debugDescription): \(diagnostics)")
        #expect(try SoulParser.parse(text, fileName: "new.md").name == name)
    }

    @Test(arguments: ["", "   ", "\t"])
    func aBlankNameIsRefused(_ name: String) {
        #expect { try SoulTemplate.check(name: name) } throws: { error in
            "\(error)".contains("blank")
        }
    }

    @Test(arguments: ["Evil\u{1B}]0;pwned\u{07}", "Two\nlines", "Tab\there", "C1\u{9B}2J", "Bell\u{07}", "Back\u{202E}wards"])
    func aNameWithControlCharactersIsRefused(_ name: String) {
        #expect { try SoulTemplate.check(name: name) } throws: { error in
            "\(error)".contains("control character")
        }
    }

    /// What an older `soul new` wrote for such a name: the YAML error is on the name's line
    /// (it was reported on line 2), at the character, which it names.
    @Test func aRawControlCharacterInTheFrontMatterIsReportedWhereItIs() {
        let text = "---\n# comment\n# comment\nname: \"Evil\u{1B}[2J\"\n---\n"
        let error = SoulLinter.lint(text: text, fileName: "evil.md").errors.first
        #expect(error?.line == 4 && error?.column == 12, "\(String(describing: error))")
        #expect(error?.message.contains("U+001B") == true, "\(String(describing: error))")
    }

    /// The file name is the name in lowercase with dashes, short enough for any file system.
    @Test func theFileNameIsASlugOfTheName() {
        #expect(SoulTemplate.fileName(for: "Night Owl") == "night-owl.md")
        #expect(SoulTemplate.fileName(for: "!!!") == "soul.md")
        #expect(SoulTemplate.fileName(for: String(repeating: "Very long name ", count: 40)).utf8.count <= 100)
    }

    @Test func anExistingFileIsKeptAndTheMessageSaysForceReplacesIt() throws {
        let directory = Scratch.root.appendingPathComponent("soul-new-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("night-owl.md")
        try "mine".write(to: url, atomically: true, encoding: .utf8)
        #expect { try SoulTemplate.write(name: "Night Owl", to: url, force: false) } throws: { error in
            let message = "\(error)"
            return message.contains(url.path) && message.contains("exists") && message.contains("--force")
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == "mine")
        try SoulTemplate.write(name: "Night Owl", to: url, force: true)
        #expect(try SoulParser.load(contentsOf: url).name == "Night Owl")
    }

    /// "-o newdir/" wrote a file called newdir: a name that ends in a slash is a folder, made
    /// when its parent exists, and NAME.md goes into it.
    @Test func aNameEndingInASlashIsAFolderMadeAndWrittenInto() throws {
        let directory = Scratch.root.appendingPathComponent("soul-new-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = URL(fileURLWithPath: directory.path + "/owls/")
        let written = try SoulTemplate.write(name: "Night Owl", to: folder, force: false)
        #expect(written.path == directory.path + "/owls/night-owl.md")
        #expect(try SoulParser.load(contentsOf: written).name == "Night Owl")
        let deeper = URL(fileURLWithPath: directory.path + "/missing/owls/")
        #expect { try SoulTemplate.write(name: "Night Owl", to: deeper, force: false) } throws: { error in
            "\(error)" == "cannot create the folder \(directory.path)/missing/owls: the folder \(directory.path)/missing does not exist"
        }
    }

    /// A folder is written into, as `cp` does (it said "exists; pass --force", and --force gave
    /// Foundation's "error 512"); a link to nothing is there too, and is replaced only with --force.
    @Test func aFolderIsWrittenIntoAndALinkToNothingNeedsForce() throws {
        let directory = Scratch.root.appendingPathComponent("soul-new-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try SoulTemplate.write(name: "Night Owl", to: directory, force: false)
        #expect(written.path == directory.appendingPathComponent("night-owl.md").path)
        #expect(try SoulParser.load(contentsOf: written).name == "Night Owl")
        let link = directory.appendingPathComponent("dangling.md")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "nowhere.md")
        #expect { try SoulTemplate.write(name: "Owl", to: link, force: false) } throws: { "\($0)".contains("(a symbolic link); pass --force") }
        try SoulTemplate.write(name: "Owl", to: link, force: true)
        #expect(try SoulParser.load(contentsOf: link).name == "Owl")
    }
}

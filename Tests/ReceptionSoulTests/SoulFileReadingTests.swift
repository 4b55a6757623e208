import Foundation
import Testing
import ReceptionTestSupport
@testable import ReceptionSoul

/// What `soul show`, `soul lint`, `soul preview` and the catalog say about a file they cannot
/// read as a soul: a plain, located sentence, never a Foundation error.
@Suite("Reading soul files", .onTheCPULane)
struct SoulFileReadingTests {
    static func temporaryFile(_ bytes: [UInt8], name: String = "soul.md") throws -> URL {
        let directory = Scratch.root.appendingPathComponent("soul-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    static func isPlain(_ message: String) -> Bool {
        !message.contains("NSCocoaErrorDomain") && !message.contains("Code=") && !message.contains("permission")
    }

    @Test func aDeviceIsNotARegularFile() throws {
        let url = URL(fileURLWithPath: "/dev/zero")
        let diagnostics = SoulLinter.lint(contentsOf: url)
        #expect(diagnostics.count == 1)
        let error = try #require(diagnostics.first)
        #expect(error.severity == .error && error.file == "/dev/zero" && error.line == 1)
        #expect(error.message.contains("not a regular file"), "\(error)")
        #expect(Self.isPlain(error.message), "\(error)")
        #expect { try SoulParser.load(contentsOf: url) } throws: { error in
            "\(error)" == "/dev/zero:1:1: error: \(diagnostics[0].message)"
        }
    }

    @Test func aLatin1FileSaysWhereTheFirstInvalidByteIs() throws {
        // "Café soul" in Latin-1: é is 0xE9, at offset 3 of line 1; the second file has it on line 3.
        let url = try Self.temporaryFile(Array("Caf".utf8) + [0xE9] + Array(" soul\n\n## Voice\nShort.\n".utf8))
        let error = try #require(SoulLinter.lint(contentsOf: url).first)
        #expect(error.message.contains("not UTF-8 text") && error.message.contains("offset 3"), "\(error)")
        #expect(error.line == 1 && Self.isPlain(error.message), "\(error)")
        let later = try Self.temporaryFile(Array("# Café\n\nSo far so good.\nNa".utf8) + [0xEF, 0x76] + Array("e\n".utf8))
        let laterError = try #require(SoulLinter.lint(contentsOf: later).first)
        #expect(laterError.line == 4 && laterError.message.contains("offset 27"), "\(laterError)")
    }

    @Test func aBinaryFileIsNotText() throws {
        let url = try Self.temporaryFile([0x47, 0x19, 0x00, 0x01, 0xFF, 0x10, 0x20, 0x00])
        let error = try #require(SoulLinter.lint(contentsOf: url).first)
        #expect(error.message.contains("not UTF-8 text") || error.message.contains("not a text file"), "\(error)")
        #expect(Self.isPlain(error.message), "\(error)")
        let nul = try Self.temporaryFile(Array("# Name\n\nText".utf8) + [0x00] + Array("more\n".utf8))
        let nulError = try #require(SoulLinter.lint(contentsOf: nul).first)
        #expect(nulError.message.contains("not a text file") && nulError.line == 3, "\(nulError)")
    }

    @Test func aMissingFileSaysSo() {
        let error = SoulLinter.lint(contentsOf: URL(fileURLWithPath: "/nonexistent/soul.md")).first
        #expect(error?.message.contains("no such file") == true, "\(String(describing: error))")
        #expect(error.map { Self.isPlain($0.message) } == true)
    }

    /// `soul list` and the REPL's `/soul list` read the same way.
    @Test func theCatalogSaysTheSameOfABrokenFile() throws {
        let url = try Self.temporaryFile(Array("Caf".utf8) + [0xE9] + Array("\n".utf8), name: "latin.md")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let catalog = SoulCatalog(directories: [url.deletingLastPathComponent()], includeBuiltIn: false)
        let entry = try #require(catalog.entries().first)
        #expect(entry.errors.first?.message.contains("not UTF-8 text") == true, "\(entry.errors)")
    }
}

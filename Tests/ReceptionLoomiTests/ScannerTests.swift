import Foundation
import ReceptionCore
@testable import ReceptionLoomi
import Testing

@Suite("Loomi: reading recipes as the bytes arrive")
struct ScannerTests {
    @Test func elementsComeOutAsSoonAsTheyAreCompleteEvenByteByByte() throws {
        let body = #"{"metadata": {"recipes": ["not these"]}, "recipes": [ {"id": "a", "title": "Braces { and ] in \"strings\""}, {"id":"b","n":[1,{"x":2}]} , null ], "tail": 1}"#
        var scanner = RecipeArrayScanner()
        var elements: [String] = []
        var completedAt: [Int] = []
        for (offset, byte) in Array(body.utf8).enumerated() {
            for element in try scanner.feed([byte]) {
                elements.append(String(decoding: element, as: UTF8.self))
                completedAt.append(offset)
            }
        }
        #expect(elements == [#"{"id": "a", "title": "Braces { and ] in \"strings\""}"#, #"{"id":"b","n":[1,{"x":2}]}"#, "null "])
        // The first is handed out at its closing brace, long before the body ends.
        let firstClosingBrace = body.utf8.count - body.components(separatedBy: #"strings\""}"#)[1].utf8.count - 1
        #expect(completedAt[0] == firstClosingBrace)
        #expect(completedAt[2] < body.utf8.count - 10)
        #expect(!scanner.isInsideValue)
    }

    @Test func anAnswerCutShortIsNoticedAndAHugeRecordIsRefused() throws {
        var cut = RecipeArrayScanner()
        _ = try cut.feed(Array(#"{"recipes": [{"id": "a"}, {"id": "b", "ti"#.utf8))
        #expect(cut.isInsideValue)
        var small = RecipeArrayScanner(maxElementBytes: 64)
        #expect(throws: RecipeArrayScanner.Failure.self) {
            _ = try small.feed(Array(("{\"recipes\": [{\"id\": \"" + String(repeating: "x", count: 100) + "\"}]}").utf8))
        }
    }

    @Test func recordsAreReadLenientlyAndWhatIsMissingIsNamed() throws {
        let record = try #require(RecipeRecord(.object([
            "id": .number(7), "name": .string("Soup\nwith a second line"),
            "ingredients": .string("1 onion\n2 carrots"),
            "nutrition": .object(["calories": .number(200), "protein": .string("9g")]),
            "steps": .array([.object(["step": .number(1), "text": .string("Chop.")])]),
        ])))
        #expect(record.id == "7" && record.title == "Soup with a second line")
        #expect(record.ingredients == ["1 onion", "2 carrots"])
        #expect(record.nutrition == ["calories 200", "protein 9g"])
        #expect(record.instructions == ["1 Chop."])
        #expect(record.missing == ["images"])
        #expect(RecipeRecord(.object(["title": .string("no id")])) == nil)
        let hostile = try #require(RecipeRecord(.object(["id": .string("x\u{07}"), "title": .string("\u{1b}]52;c;cHduZWQ=\u{07}Cake\u{1b}[2J")])))
        #expect(hostile.id == "x" && hostile.title == "]52;c;cHduZWQ=Cake[2J", "no control character survives: \(hostile.title ?? "")")
        #expect(RecipeRecord(.string("just text")) == nil)
    }

    /// However the bytes are cut into chunks, the same elements come out; arbitrary bytes
    /// either yield something or throw, never crash or hang.
    @Test func anyChunkingGivesTheSameRecordsAndGarbageNeverCrashes() throws {
        let recipes: [JSONValue] = (0..<6).map { index in
            .object(["id": .string("r\(index)"), "title": .string("T\\\"{[\(index)]}\""), "n": .array([.number(Double(index)), .object(["k": .null])])])
        }
        let body = Array(Wire.jsonString(JSONValue.object(["recipes": .array(recipes), "metadata": .object(["missing_ids": .array([])])])).utf8)
        var whole = RecipeArrayScanner()
        let expected = try whole.feed(body)
        #expect(expected.count == 6)
        #expect(try expected.map { try Wire.decode(JSONValue.self, from: Data($0)) } == recipes)
        var generator = SeededRandom(seed: 19)
        for _ in 0..<300 {
            var scanner = RecipeArrayScanner()
            var found: [[UInt8]] = []
            var start = 0
            while start < body.count {
                let end = min(body.count, start + Int.random(in: 1...40, using: &generator))
                found += try scanner.feed(body[start..<end])
                start = end
            }
            #expect(found == expected)
        }
        for _ in 0..<300 {
            var scanner = RecipeArrayScanner(maxElementBytes: 512)
            let garbage = (0..<Int.random(in: 0...400, using: &generator)).map { _ in
                [UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\""), UInt8(ascii: "\\"),
                 UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "r"), 0xFF, 0x00][Int.random(in: 0..<11, using: &generator)]
            }
            _ = try? scanner.feed(Array("{\"recipes\": [".utf8) + garbage)
        }
    }
}

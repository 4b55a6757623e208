import Foundation
import Testing

/// Files are named for the type or the concern they hold (`Type.swift`, `Type+Concern.swift`):
/// a numbered file beside its namesake (`ReferenceRoutes2.swift` beside `ReferenceRoutes.swift`)
/// says only that the first one grew, and a reader cannot tell where anything is.
@Test("No source file is a numbered overflow of another")
func noSourceFileIsANumberedOverflow() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    var numbered: [String] = []
    for folder in ["Sources", "Tests"] {
        let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            // `Bytes8.swift` holding a type `Bytes8` is fine; `X2.swift` beside `X.swift` is not.
            let name = String((path as NSString).lastPathComponent.dropLast(".swift".count))
            let stem = String(name.reversed().drop { $0.isNumber }.reversed())
            guard stem != name else { continue }
            let sibling = root.appendingPathComponent(folder).appendingPathComponent((path as NSString).deletingLastPathComponent)
                .appendingPathComponent(stem + ".swift")
            if FileManager.default.fileExists(atPath: sibling.path) { numbered.append("\(folder)/\(path)") }
        }
    }
    #expect(numbered.isEmpty, "name these for what they hold: \(numbered)")
}

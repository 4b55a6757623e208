/// Finds the elements of one array in a JSON object while its bytes are still arriving:
/// given `{"recipes": [{…}, {…}], …}` in chunks of any size, it hands out each element of
/// `recipes` as soon as its closing brace arrived, so a recipe card can be shown before the
/// rest of the answer is read (seed 004: "stream in recipe cards as data arrives").
///
/// It only tracks nesting and strings; each element is then decoded on its own. An element
/// larger than `maxElementBytes` is an error, so a server cannot grow memory without bound.
struct RecipeArrayScanner {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let key: [UInt8]
    let maxElementBytes: Int

    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The bytes of the string being read at depth 1 (a key of the top-level object).
    private var keyBytes: [UInt8] = []
    private var lastKey: [UInt8]?
    /// The key whose value is being read at depth 1.
    private var valueKey: [UInt8]?
    private var inTarget = false
    private var element: [UInt8] = []
    private var elementIsContainer = false

    init(key: String = "recipes", maxElementBytes: Int = 1 << 20) {
        self.key = Array(key.utf8)
        self.maxElementBytes = maxElementBytes
    }

    /// True while the bytes so far stop inside the top-level value (the answer was cut short).
    var isInsideValue: Bool { depth > 0 || inString }

    /// Feeds the next bytes; returns the elements completed by them, in order.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws -> [[UInt8]] where Bytes.Element == UInt8 {
        var completed: [[UInt8]] = []
        for byte in bytes {
            let capturing = inTarget && (depth > 2 || !element.isEmpty || !Self.isSeparator(byte))
            if inString {
                if capturing { try append(byte) }
                if depth == 1 && keyBytes.count < 256 && !(byte == 0x22 && !escaped) { keyBytes.append(byte) }
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 {
                    inString = false
                    if depth == 1 { lastKey = keyBytes }
                }
                continue
            }
            switch byte {
            case 0x22:  // "
                inString = true
                keyBytes = []
                if capturing { try append(byte) }
            case 0x7B, 0x5B:  // { [
                if inTarget && depth == 2 && element.isEmpty { elementIsContainer = true }
                if capturing { try append(byte) }
                if depth == 1 && byte == 0x5B && valueKey == key { inTarget = true }
                depth += 1
            case 0x7D, 0x5D:  // } ]
                depth -= 1
                if depth < 0 { throw Failure(description: "a closing bracket without an opening one") }
                if inTarget && depth == 1 {
                    // The array itself closed: a scalar element before it is complete.
                    if !element.isEmpty { completed.append(finishElement()) }
                    inTarget = false
                } else if capturing {
                    try append(byte)
                    if inTarget && depth == 2 && elementIsContainer { completed.append(finishElement()) }
                }
            case 0x3A:  // :
                if depth == 1 { valueKey = lastKey }
                if capturing { try append(byte) }
            case 0x2C:  // ,
                if depth == 1 { valueKey = nil }
                if inTarget && depth == 2 {
                    if !element.isEmpty { completed.append(finishElement()) }
                } else if capturing { try append(byte) }
            default:
                if capturing { try append(byte) }
            }
        }
        return completed
    }

    private mutating func append(_ byte: UInt8) throws {
        element.append(byte)
        if element.count > maxElementBytes {
            throw Failure(description: "one recipe is larger than \(maxElementBytes) bytes")
        }
    }

    private mutating func finishElement() -> [UInt8] {
        defer {
            element = []
            elementIsContainer = false
        }
        return element
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x2C
    }
}

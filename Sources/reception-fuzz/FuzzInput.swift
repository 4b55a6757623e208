/// Reads fuzzer bytes as decisions (a limit, a chunk length, a selector) and then as payload,
/// in the manner of LLVM's FuzzedDataProvider: decisions come from the front, so a mutation
/// of the payload does not change how it is cut, and an empty input still reads as zeros.
struct FuzzInput {
    private(set) var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    var isEmpty: Bool { bytes.isEmpty }

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A number in `range`, from one or two bytes.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = range.upperBound - range.lowerBound + 1
        let raw = span > 256 ? Int(byte()) << 8 | Int(byte()) : Int(byte())
        return range.lowerBound + raw % span
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }

    /// The payload split at up to `maxCuts` points chosen by the fuzzer (chunk lengths are read
    /// from the front, the payload is the rest).
    mutating func chunks(maxCuts: Int) -> [[UInt8]] {
        let cuts = int(in: 0...maxCuts)
        var lengths: [Int] = []
        for _ in 0..<cuts { lengths.append(int(in: 0...300)) }
        var payload = rest()[...]
        var chunks: [[UInt8]] = []
        for length in lengths where !payload.isEmpty {
            chunks.append(Array(payload.prefix(length)))
            payload = payload.dropFirst(length)
        }
        chunks.append(Array(payload))
        return chunks
    }
}

/// A failed property, as a crash the fuzzer keeps: the message says which property.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz property violated: \(message())") }
}

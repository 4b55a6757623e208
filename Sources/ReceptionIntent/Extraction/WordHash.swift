/// The token identity used everywhere in the classifier: a 64-bit hash of a word's bytes taken
/// eight at a time (`WordHash`), so the scanner hashes a word with one multiply per eight
/// bytes, as it finds the word's end.
@inline(__always)
public func tokenHash<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
    var hash = WordHash.seed, chunk: UInt64 = 0, shift: UInt64 = 0
    for byte in bytes {
        chunk |= UInt64(byte) << shift
        shift &+= 8
        if shift == 64 {
            hash = WordHash.step(hash, chunk)
            chunk = 0
            shift = 0
        }
    }
    return shift == 0 ? hash : WordHash.step(hash, chunk)
}

/// The word hash, chunk by chunk: the bytes in little-endian 64-bit chunks, the last one padded
/// with zero bytes (no word holds one, so padding never makes two words alike). One chunk is a
/// bijection of its bytes: words of up to eight bytes never collide.
enum WordHash {
    static let seed: UInt64 = 0x243f_6a88_85a3_08d3

    @inline(__always)
    static func step(_ hash: UInt64, _ chunk: UInt64) -> UInt64 {
        let x = (hash ^ chunk) &* 0x9fb2_1c65_1e98_df25
        return x ^ (x >> 32)
    }
}

@inline(__always)
public func tokenHash(_ word: String) -> UInt64 { tokenHash(Array(word.utf8)) }

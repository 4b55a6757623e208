/// The cue trie: lexicon phrases and vocabulary n-grams as paths of token hashes.
///
/// A node is known by its path key (`combine` of its parent's key and its token, from
/// `trieRoot`), so a walk needs no node ids: each step computes the next key and reads one
/// record, `TrieNode`, holding all a step needs. A first-level node's data sits in its
/// token's own `TokenInfo` instead, which the walk has already read.

/// The root's path key.
let trieRoot: UInt64 = 0

/// The path key of the child of the node keyed `parent` along the token `hash`.
@inline(__always)
func combine(_ parent: UInt64, _ hash: UInt64) -> UInt64 {
    (hash ^ (parent &* 0x9e37_79b9_7f4a_7c15)) &* 0xbf58_476d_1ce4_e5b9
}

/// The bit a token sets in its trie parent's child signature (six high bits of its hash).
/// A walk probes a child only when its token's bit is set, which spares most probes.
@inline(__always)
func childBit(_ hash: UInt64) -> UInt64 { UInt64(1) << (hash >> 58) }

/// A node's cue entries: a range of `nodeCues` and `cueEmits`, packed in 32 bits (start, then
/// count in the low byte) so it fits in a token's 32-byte record. Empty by default.
struct CueRange: Sendable, Equatable {
    private var packed: UInt32 = 0

    init() {}

    init(start: Int, count: Int) {
        // `Lexicon` limits its phrases, and the families one phrase is in, to stay well within.
        precondition(start < 1 << 24 && count < 1 << 8, "the trie holds at most 16M cue entries, 255 per node")
        packed = UInt32(start) << 8 | UInt32(count)
    }

    var start: Int { Int(packed >> 8) }
    var end: Int { Int(packed >> 8) &+ Int(packed & 0xFF) }
}

/// A trie node below the first level: its path key, its children's signature (`childBit`), its
/// cue entries and a copy of the first one's `CueEmit` (most such nodes have one entry, which a
/// match then adds without reading `cueEmits`), in one 32-byte slot.
struct TrieNode: TableRecord, Sendable {
    var key: UInt64 = 0
    var children: UInt64 = 0
    var cues = CueRange()
    var first = CueEmit()

    init() {}

    init(key: UInt64, children: UInt64, cues: CueRange, first: CueEmit) {
        self.key = key
        self.children = children
        self.cues = cues
        self.first = first
    }

    /// A node of the trie, not the empty record a missing key reads.
    var exists: Bool { key != 0 }
}

typealias TrieTable = DisplacementTable<TrieNode>

extension DisplacementTable.Reader where Record == TrieNode {
    /// The node with path key `key`, or the empty record (no children, no cues) when there is
    /// none: a walk that steps off the trie simply stops at its next signature test.
    @inline(__always)
    func node(_ key: UInt64) -> TrieNode { self[find(key)] }
}

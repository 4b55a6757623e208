import Foundation

/// The extractor's lookup tables as raw pointers: all the hot path reads per message, in a
/// value that copies with no reference counting. The memory belongs to the `FeatureExtractor`
/// that made it, and is valid while that extractor lives.
struct ExtractorTables: @unchecked Sendable {
    let rewriteStart: UnsafeMutablePointer<Int32>     // rewrite → range in rewriteTokens
    let rewriteTokens: UnsafeMutablePointer<UInt64>
    let rewriteSlots: UnsafeMutablePointer<Int32>     // table slots of rewriteTokens
    let trie: TrieTable.Reader                        // path key → node below the first level (`Trie.swift`)
    let table: TokenTable.Reader                      // token → classes, features, rewrite, first-level node (one probe)
    let nodeCues: UnsafeMutablePointer<Int32>         // a node's cue entries: phrase ids, or -(word feature + 1)
    let phraseCues: UnsafeMutablePointer<PhraseCue>   // phrase id → the features it sets
    let cueEmits: UnsafeMutablePointer<CueEmit>       // parallel to nodeCues: what a match adds
    /// The `cue:` features of the time and ongoing-situation families: a message with one is not `time:none`.
    let timeFamilies: UnsafeBufferPointer<Int32>
    let pronounIs: HashTable.Reader                   // tokens whose "'s" means "is"
    /// The tokens a contraction's suffix becomes ("n't" → not, "'re" → are, ...).
    let suffixes: ContractionSuffixes
    /// The most tokens one raw word can become (a rewrite, plus a contraction's suffix).
    let maxExpansion: Int
    let featureCount: Int

    /// Tokens in the first, stack-sized scratch buffer (1 KiB).
    static let stackTokens = 1024 / MemoryLayout<Token>.stride
    /// Feature ids in the first, stack-sized scratch buffer (1 KiB).
    static let stackFeatures = 1024 / MemoryLayout<Int32>.stride
}

/// The features a lexicon phrase sets, resolved when the tables are built so a match costs
/// one lookup: its family's and its own, its family's negated and goal features.
struct PhraseCue: Sendable {
    let family: Int32
    let phrase: Int32
    let negated: Int32
    let goal: Int32
    /// The family is a time or ongoing-situation family (the message is not `time:none`).
    let isTime: Bool
}

/// What one entry of `nodeCues` adds to a message, resolved so a match needs no branch on
/// its kind: a phrase adds its family and itself, or, negated, its family's negated feature;
/// a vocabulary n-gram adds its word feature either way. -1: nothing (all three, by default).
struct CueEmit: Sendable {
    var plain: Int32 = -1
    var phrase: Int32 = -1
    var negated: Int32 = -1
}

/// A contraction suffix's token and its token-table slot.
struct SuffixToken: Sendable {
    let hash: UInt64
    let slot: Int32
}

struct ContractionSuffixes: Sendable {
    let isToken: SuffixToken, not: SuffixToken, are: SuffixToken, have: SuffixToken
    let will: SuffixToken, would: SuffixToken, am: SuffixToken

    init(_ table: TokenTable.Reader) {
        func token(_ word: String) -> SuffixToken {
            let hash = tokenHash(word)
            return SuffixToken(hash: hash, slot: table.slot(hash))
        }
        isToken = token("is"); not = token("not"); are = token("are"); have = token("have")
        will = token("will"); would = token("would"); am = token("am")
    }
}

import ReceptionSoul

/// `text` streamed in two chunks, split after `split` Unicode scalars, and styled as a stream
/// styles it: what a streamed answer shows, to compare with the whole text styled at once.
func streamedInTwo(_ text: String, soul: Soul, split: Int) -> String {
    let scalars = Array(text.unicodeScalars)
    var stream = SoulTextStream(soul: soul)
    var out = ""
    for chunk in [scalars[..<split], scalars[split...]] {
        if let part = stream.feed(String(String.UnicodeScalarView(chunk))) { out += part.styled }
    }
    if let part = stream.finish() { out += part.styled }
    return out
}

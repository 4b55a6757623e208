extension Array {
    /// The element a person numbers `number`, counting from 1 ("/followups 2", "queue drop 1"),
    /// or nil. Typed numbers are untrusted: `number - 1` of Int.min traps, so the range is
    /// checked first.
    public func element(numbered number: Int) -> Element? {
        guard number >= 1, number <= count else { return nil }
        return self[number - 1]
    }
}

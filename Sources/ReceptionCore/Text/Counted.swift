/// "1 entry", "3 entries": a count with its noun in the right number, for every line
/// Reception writes ("Saved 1 entries" and "3 file(s)" read as unfinished).
public enum Counted {
    /// `count` and `singular`, or `plural` (default: `singular` + "s") when count is not 1.
    public static func phrase(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}

/// Markdown blocks shown in part: one reading, for the local backend's quoted passages and a
/// soul's length limit, of how a code block or table too long to show whole is cut.
public enum MarkdownBlock {
    /// `block` (its lines) cut to its first lines that fit `budget` characters, then a line
    /// saying how many lines are left, then its last line when `keepsLastLine` (a code block's
    /// closing fence: without it, what follows would read as code). Nil when nothing is left
    /// out or not one line fits.
    public static func shortened(_ block: some StringProtocol, toFit budget: Int, keepsLastLine: Bool) -> String? {
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        let closing = keepsLastLine && lines.count > 1 ? lines.last : nil
        let body = lines.dropLast(closing == nil ? 0 : 1)
        // Room for the closing line and the line that counts what is left out.
        var room = budget - (closing.map { $0.count + 1 } ?? 0) - 24
        var kept: [String] = []
        for line in body {
            guard line.count + 1 <= room else { break }
            kept.append(String(line))
            room -= line.count + 1
        }
        let left = body.count - kept.count
        guard !kept.isEmpty, left > 0 else { return nil }
        return (kept + ["… (\(left) more \(left == 1 ? "line" : "lines"))"] + (closing.map { [String($0)] } ?? [])).joined(separator: "\n")
    }
}

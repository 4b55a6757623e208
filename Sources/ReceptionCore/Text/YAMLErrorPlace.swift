/// One place and one sentence for a YAML syntax error.
///
/// libyaml reports two positions: where it noticed the problem and the context it was in
/// ("while scanning a simple key" at one line, "could not find expected ':'" at the next).
/// Printing both read as one error with two line numbers (`9:1: … (line 8)`). The context's
/// place is where the mistake is when that context is a key missing its `:` (the parser only
/// notices on the following line); otherwise the problem's place is, and the context is said
/// in words without a number. Lines and columns are the parser's (1-based, within the YAML text).
public enum YAMLErrorPlace {
    public static func choose(problem: String, line: Int, column: Int,
                              context: String?, contextLine: Int?, contextColumn: Int?) -> (line: Int, column: Int, message: String) {
        guard let context, !context.isEmpty else { return (line, column, problem) }
        if context.contains("simple key"), let contextLine, let contextColumn {
            return (contextLine, contextColumn, "\(problem) (this line looks like a key without its ':')")
        }
        return (line, column, "\(problem) (\(context))")
    }
}

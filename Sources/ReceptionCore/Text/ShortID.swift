/// Ids as people type them: the first characters of a long id, as tables and summaries show
/// it cut short. One rule for every command that takes one (`/tasks`, `/cancel`, `/scene`).
public enum ShortID {
    /// True when `typed` is shorter than a whole UUID, so it must be looked up.
    public static func needsLookup(_ typed: String) -> Bool { typed.count < 36 }

    /// The known ids that start with `typed` (case does not matter), each once, sorted: one
    /// means found, none or several is for the caller to say in its own words.
    public static func matches(_ typed: String, among ids: [String]) -> [String] {
        let prefix = typed.lowercased()
        return Set(ids.filter { $0.lowercased().hasPrefix(prefix) }).sorted()
    }

    /// The one id `typed` starts, or the caller's error for none or several (its own words).
    public static func resolve(_ typed: String, among ids: [String], none: () -> any Error,
                               several: (_ matching: [String]) -> any Error) throws -> String {
        let matching = matches(typed, among: ids)
        switch matching.count {
        case 1: return matching[0]
        case 0: throw none()
        default: throw several(matching)
        }
    }
}

import Foundation

/// Checks a heartbeat's cron expression before it is sent.
///
/// Loop Symphony stores any text as a heartbeat's cron and reads it only when it ticks (with
/// `croniter`): an expression it cannot read makes a heartbeat that never runs, with no next
/// time and no error anywhere. So the REPL reads it first, as `croniter` would: five fields
/// (minute, hour, day of the month, month, day of the week), each `*`, a number or a name
/// (`jan`, `mon`), a range `a-b`, a step `/n`, or a list of those; or one of `@hourly`,
/// `@daily` (`@midnight`), `@weekly`, `@monthly`, `@yearly` (`@annually`). `L` (the last day of
/// the month) and `#` (the nth weekday: `mon#2`) are accepted where `croniter` takes them.
public enum CronExpression {
    static let macros: Set<String> = ["@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually"]

    struct Field {
        let name: String
        let range: ClosedRange<Int>
        let names: [String: Int]
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    static let fields = [
        Field(name: "minute", range: 0...59, names: [:]),
        Field(name: "hour", range: 0...23, names: [:]),
        Field(name: "day of the month", range: 1...31, names: [:]),
        Field(name: "month", range: 1...12, names: Dictionary(uniqueKeysWithValues: months.enumerated().map { ($1, $0 + 1) })),
        Field(name: "day of the week", range: 0...7, names: Dictionary(uniqueKeysWithValues: days.enumerated().map { ($1, $0) })),
    ]

    static let example = "`0 7 * * *` runs at 07:00 every day, `*/15 9-17 * * mon-fri` every quarter hour of a working day"

    /// Why `expression` is not a cron expression, in words; nil when it is one.
    public static func problem(_ expression: String) -> String? {
        let trimmed = expression.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return "A cron expression is needed: five fields, minute hour day month weekday (\(example))." }
        if trimmed.hasPrefix("@") {
            return macros.contains(trimmed.lowercased()) ? nil
                : "“\(trimmed)” is not a cron expression: the named schedules are \(macros.sorted().joined(separator: ", "))."
        }
        let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 5 else {
            return "“\(trimmed)” is not a cron expression: it needs five fields, minute hour day month weekday, and has \(parts.count) (\(example))."
        }
        for (part, field) in zip(parts, fields) {
            if let problem = problem(String(part).lowercased(), field) {
                return "“\(trimmed)” is not a cron expression: \(problem) (\(example))."
            }
        }
        return nil
    }

    private static func problem(_ text: String, _ field: Field) -> String? {
        for item in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard !item.isEmpty else { return "the \(field.name) field “\(text)” has an empty item in its list" }
            if let problem = itemProblem(item, field) { return problem }
        }
        return nil
    }

    private static func itemProblem(_ item: String, _ field: Field) -> String? {
        var base = Substring(item)
        if let slash = item.firstIndex(of: "/") {
            let step = item[item.index(after: slash)...]
            guard let value = Int(step), value > 0 else { return "the step in the \(field.name) field “\(item)” is not a whole number above 0" }
            base = item[..<slash]
        }
        if base == "*" || (base == "?" && field.range.lowerBound >= 0 && (field.name.hasPrefix("day"))) { return nil }
        if field.name == "day of the month", base == "l" { return nil }
        if field.name == "day of the week", let hash = base.firstIndex(of: "#") {
            guard value(base[..<hash], field) != nil, let nth = Int(base[base.index(after: hash)...]), (1...5).contains(nth) else {
                return "the \(field.name) field “\(item)” is not a weekday and its number in the month (1 to 5), such as mon#2"
            }
            return nil
        }
        let bounds = base.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count <= 2, bounds.allSatisfy({ !$0.isEmpty }) else {
            return "the \(field.name) field “\(item)” is not a value, a range a-b or a step"
        }
        var values: [Int] = []
        for bound in bounds {
            guard let number = value(bound, field) else {
                let names = field.names.isEmpty ? "" : " or a name (\(field.name == "month" ? "jan–dec" : "sun–sat"))"
                return "the \(field.name) field “\(item)” is not a number from \(field.range.lowerBound) to \(field.range.upperBound)\(names)"
            }
            values.append(number)
        }
        if values.count == 2, values[0] > values[1] {
            return "the range in the \(field.name) field “\(item)” goes backwards"
        }
        return nil
    }

    private static func value(_ text: Substring, _ field: Field) -> Int? {
        if let number = Int(text) { return field.range.contains(number) ? number : nil }
        return field.names[String(text)]
    }
}

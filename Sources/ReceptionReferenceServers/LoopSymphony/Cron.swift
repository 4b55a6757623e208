import Foundation

/// Five-field cron (minute hour day-of-month month day-of-week) in UTC: numbers, `*`, lists,
/// ranges and steps. Enough for heartbeat schedules; an expression it cannot read never runs
/// and has no next time (the real server reports `next_scheduled: null` then too).
enum Cron {
    static func fieldMatches(_ field: Substring, _ value: Int, range: ClosedRange<Int>) -> Bool? {
        for part in field.split(separator: ",") {
            var base = part
            var step = 1
            if let slash = part.firstIndex(of: "/") {
                guard let s = Int(part[part.index(after: slash)...]), s > 0 else { return nil }
                step = s
                base = part[..<slash]
            }
            let lower: Int, upper: Int
            if base == "*" {
                lower = range.lowerBound; upper = range.upperBound
            } else if let dash = base.firstIndex(of: "-") {
                guard let a = Int(base[..<dash]), let b = Int(base[base.index(after: dash)...]) else { return nil }
                lower = a; upper = b
            } else {
                guard let a = Int(base) else { return nil }
                lower = a; upper = step > 1 ? range.upperBound : a
            }
            if value >= lower && value <= upper && (value - lower) % step == 0 { return true }
        }
        return false
    }

    static func matches(_ expression: String, _ date: Date) -> Bool? {
        let fields = expression.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 5 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.minute, .hour, .day, .month, .weekday], from: date)
        let checks: [(Substring, Int, ClosedRange<Int>)] = [
            (fields[0], c.minute!, 0...59), (fields[1], c.hour!, 0...23), (fields[2], c.day!, 1...31),
            (fields[3], c.month!, 1...12), (fields[4], (c.weekday! + 6) % 7, 0...6),
        ]
        for (field, value, range) in checks {
            guard let ok = fieldMatches(field, value, range: range) else { return nil }
            if !ok { return false }
        }
        return true
    }

    /// The first matching minute strictly after `date` (searching up to a year ahead).
    static func next(_ expression: String, after date: Date) -> Date? {
        var t = (date.timeIntervalSince1970 / 60).rounded(.down) * 60 + 60
        for _ in 0..<(366 * 24 * 60) {
            let candidate = Date(timeIntervalSince1970: t)
            guard let ok = matches(expression, candidate) else { return nil }
            if ok { return candidate }
            t += 60
        }
        return nil
    }

    /// Never run: due. Otherwise due when a scheduled minute passed since the last run.
    static func isDue(_ expression: String, lastRun: Date?, now: Date) -> Bool {
        guard matches(expression, now) != nil else { return false }
        guard let lastRun else { return true }
        guard let next = next(expression, after: lastRun) else { return false }
        return next <= now
    }
}

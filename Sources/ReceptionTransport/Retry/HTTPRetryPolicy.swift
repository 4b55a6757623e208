import Foundation

/// When and how long to wait before sending a refused call again: a server that says it is
/// busy (429 Too Many Requests, 503 Service Unavailable) is asked again after the delay it
/// names in `Retry-After`, or after an exponential backoff with jitter when it names none.
///
/// Only calls that changed nothing on the server are retried (the refusal came before any
/// work), so a retry never runs a request twice. A `Retry-After` longer than `maxDelay` is not
/// waited out: the caller gets the refusal with the wait in words, since a person would rather
/// know than watch a spinner for ten minutes.
public struct HTTPRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    public var retriedStatuses: Set<Int>

    public init(maxAttempts: Int = 4, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30),
                retriedStatuses: Set<Int> = [429, 503]) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.retriedStatuses = retriedStatuses
    }

    /// No retries at all.
    public static let never = HTTPRetryPolicy(maxAttempts: 1)

    /// The wait before attempt `attempt + 1` after a refusal with this status, or nil when
    /// the call should not be sent again. `attempt` counts from 1.
    public func delay(afterAttempt attempt: Int, status: Int, retryAfter: String?, now: Date = Date(),
                      jitter: Double = Double.random(in: 0.5...1.0)) -> Duration? {
        guard attempt < maxAttempts, retriedStatuses.contains(status) else { return nil }
        if let retryAfter, let seconds = Self.seconds(retryAfter: retryAfter, now: now) {
            // Saturating: "Retry-After: 1e300" is a finite number of seconds, and far too long.
            let wait = Duration.milliseconds(Int(saturating: (seconds * 1000).rounded(.up)))
            return wait <= maxDelay ? wait : nil
        }
        // 1 s, 2 s, 4 s … times a jitter factor, so clients refused together do not return together.
        let exponential = baseDelay * (1 << min(attempt - 1, 16))
        let capped = min(exponential, maxDelay)
        return .milliseconds(Int(Double(capped.components.seconds * 1000 + capped.components.attoseconds / 1_000_000_000_000_000) * jitter))
    }

    /// `Retry-After` as seconds from now: either delta-seconds ("120") or an HTTP date
    /// ("Wed, 21 Oct 2026 07:28:00 GMT"). Negative or unreadable values give nil.
    public static func seconds(retryAfter value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return seconds >= 0 && seconds.isFinite ? seconds : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE',' dd MMM yyyy HH':'mm':'ss 'GMT'"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// A refusal that will be retried, for telling the person why the answer is late.
public struct HTTPRetryNotice: Sendable, Hashable {
    public var status: Int
    /// The server's own words.
    public var detail: String
    public var delay: Duration
    /// The attempt about to be made, counting from 1.
    public var nextAttempt: Int
    public var maxAttempts: Int

    public init(status: Int, detail: String, delay: Duration, nextAttempt: Int, maxAttempts: Int) {
        self.status = status
        self.detail = detail
        self.delay = delay
        self.nextAttempt = nextAttempt
        self.maxAttempts = maxAttempts
    }

    /// "The server is busy (HTTP 429: Rate limit reached); trying again in 2 s (attempt 2 of 4)."
    public var message: String {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        let wait = seconds < 10 ? String(format: "%.1f s", seconds) : "\(Int(seconds.rounded())) s"
        return "The server is busy (HTTP \(status): \(detail)); trying again in \(wait) (attempt \(nextAttempt) of \(maxAttempts))."
    }
}

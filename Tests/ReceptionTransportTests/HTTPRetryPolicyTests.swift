import Foundation
import ReceptionTransport
import Testing

@Suite("Retry policy for refused calls")
struct HTTPRetryPolicyTests {
    let policy = HTTPRetryPolicy(maxAttempts: 4, baseDelay: .seconds(1), maxDelay: .seconds(30))

    @Test func retryAfterInSecondsIsWaitedOutExactly() {
        #expect(policy.delay(afterAttempt: 1, status: 429, retryAfter: "3") == .seconds(3))
        #expect(policy.delay(afterAttempt: 1, status: 503, retryAfter: " 0 ") == .zero)
    }

    @Test func retryAfterAsAnHTTPDateCountsFromNow() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let later = DateFormatter()
        later.locale = Locale(identifier: "en_US_POSIX")
        later.timeZone = TimeZone(identifier: "GMT")
        later.dateFormat = "EEE',' dd MMM yyyy HH':'mm':'ss 'GMT'"
        let header = later.string(from: now.addingTimeInterval(7))
        #expect(policy.delay(afterAttempt: 1, status: 429, retryAfter: header, now: now) == .seconds(7))
    }

    @Test func withoutRetryAfterTheWaitDoublesWithJitterUpToTheCap() {
        #expect(policy.delay(afterAttempt: 1, status: 429, retryAfter: nil, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterAttempt: 2, status: 429, retryAfter: nil, jitter: 1) == .seconds(2))
        #expect(policy.delay(afterAttempt: 3, status: 429, retryAfter: nil, jitter: 0.5) == .seconds(2))
        let capped = HTTPRetryPolicy(maxAttempts: 20, baseDelay: .seconds(1), maxDelay: .seconds(5))
        #expect(capped.delay(afterAttempt: 10, status: 503, retryAfter: nil, jitter: 1) == .seconds(5))
    }

    @Test func aWaitLongerThanTheCapOrAnotherStatusOrTheLastAttemptIsNotRetried() {
        #expect(policy.delay(afterAttempt: 1, status: 429, retryAfter: "600") == nil, "the person is told instead")
        #expect(policy.delay(afterAttempt: 1, status: 500, retryAfter: nil) == nil)
        #expect(policy.delay(afterAttempt: 4, status: 429, retryAfter: "1") == nil)
        #expect(HTTPRetryPolicy.never.delay(afterAttempt: 1, status: 429, retryAfter: "1") == nil)
        #expect(HTTPRetryPolicy.seconds(retryAfter: "-5") == nil)
        #expect(HTTPRetryPolicy.seconds(retryAfter: "soon") == nil)
        // A finite number of seconds too large for an Int of milliseconds is a long wait, not
        // a trap.
        #expect(policy.delay(afterAttempt: 1, status: 429, retryAfter: "1e300") == nil)
    }

    @Test func theNoticeSaysWhyAndHowLong() {
        let notice = HTTPRetryNotice(status: 429, detail: "Rate limit reached", delay: .milliseconds(1500), nextAttempt: 2, maxAttempts: 4)
        #expect(notice.message == "The server is busy (HTTP 429: Rate limit reached); trying again in 1.5 s (attempt 2 of 4).")
    }
}

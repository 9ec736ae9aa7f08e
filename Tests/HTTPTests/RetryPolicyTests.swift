import Foundation
import HTTP
import Testing

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(maxRetries: 3, initialDelay: .seconds(1), maxDelay: .seconds(5), totalTimeLimit: .seconds(60))

    @Test func backoffDoublesWithinJitterAndIsCapped() {
        let timeout = HTTPError.timedOut("h")
        #expect(policy.delay(beforeRetry: 1, after: timeout, elapsed: .zero, jitter: 1) == .seconds(1))
        #expect(policy.delay(beforeRetry: 2, after: timeout, elapsed: .zero, jitter: 1) == .seconds(2))
        #expect(policy.delay(beforeRetry: 3, after: timeout, elapsed: .zero, jitter: 0) == .seconds(2))
        let capped = RetryPolicy(maxRetries: 10, initialDelay: .seconds(1), maxDelay: .seconds(5), totalTimeLimit: .seconds(600))
        #expect(capped.delay(beforeRetry: 8, after: timeout, elapsed: .zero, jitter: 1) == .seconds(5))
    }

    @Test func onlyTransientFailuresAreRetried() {
        #expect(policy.delay(beforeRetry: 1, after: .status(404, host: "h", retryAfter: nil), elapsed: .zero) == nil)
        #expect(policy.delay(beforeRetry: 1, after: .cannotResolveHost("h"), elapsed: .zero) == nil)
        #expect(policy.delay(beforeRetry: 1, after: .cannotConnect("h"), elapsed: .zero) != nil)
        #expect(policy.delay(beforeRetry: 1, after: .cancelled, elapsed: .zero) == nil)
        #expect(policy.delay(beforeRetry: 1, after: .diskFull(path: "p"), elapsed: .zero) == nil)
        for code in [408, 429, 500, 502, 503, 504] {
            #expect(policy.delay(beforeRetry: 1, after: .status(code, host: "h", retryAfter: nil), elapsed: .zero) != nil)
        }
        #expect(policy.delay(beforeRetry: 4, after: .connectionLost("h"), elapsed: .zero) == nil)
    }

    @Test func retryAfterWinsButNotPastTheTimeLimit() {
        #expect(policy.delay(beforeRetry: 1, after: .status(503, host: "h", retryAfter: .seconds(7)), elapsed: .zero) == .seconds(7))
        #expect(policy.delay(beforeRetry: 1, after: .status(503, host: "h", retryAfter: .seconds(7)), elapsed: .seconds(55)) == nil)
    }

    @Test func parsesRetryAfterSecondsAndDates() {
        #expect(RetryPolicy.parseRetryAfter("120") == .seconds(120))
        #expect(RetryPolicy.parseRetryAfter("-1") == nil)
        #expect(RetryPolicy.parseRetryAfter("soon") == nil)
        let now = Date(timeIntervalSince1970: 1_445_412_470)  // Wed, 21 Oct 2015 07:27:50 GMT
        #expect(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(10))
    }
}

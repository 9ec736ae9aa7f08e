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
        // Refused and unresolved: one quick retry, then give up (curl without --retry-connrefused).
        for error in [HTTPError.cannotResolveHost("h"), .cannotConnect("h")] {
            #expect(policy.delay(beforeRetry: 1, after: error, elapsed: .zero) == RetryPolicy.quickRetryDelay)
            #expect(policy.delay(beforeRetry: 2, after: error, elapsed: .zero) == nil)
            #expect(RetryPolicy.none.delay(beforeRetry: 1, after: error, elapsed: .zero) == nil)
        }
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

    /// How long an API request someone waits on can spend waiting between attempts before it gives
    /// up, for each way a server can fail: what bounds the time to the browser's error card
    /// (the attempts themselves fail at once, or after the stall watchdog).
    @Test(arguments: [(HTTPError.cannotConnect("h"), 0.2), (.cannotResolveHost("h"), 0.2), (.connectionLost("h"), 0.9),
                      (.status(500, host: "h", retryAfter: nil), 0.9), (.stalled("h"), 0.3)])
    func theStandardPolicyGivesUpWithinASecond(_ error: HTTPError, _ worstCase: Double) {
        var waited = Duration.zero, retry = 1
        while let wait = RetryPolicy.standard.delay(beforeRetry: retry, after: error, elapsed: waited, jitter: 1) {
            waited += wait
            retry += 1
        }
        #expect(waited == .milliseconds(Int(worstCase * 1000)), "\(error)")
    }
}

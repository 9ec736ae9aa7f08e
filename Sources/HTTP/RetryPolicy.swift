import Foundation

/// When and how long to wait before trying a failed request again: curl's `--retry` semantics
/// (transient failures only), exponential backoff with jitter, `Retry-After` honoured, and a cap on
/// the total time spent. For downloads, the count and the time are those since the last attempt that
/// delivered new bytes: a link that keeps dropping but keeps making progress is followed to the end.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts after the first one.
    public var maxRetries: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    /// No retry starts once this much time has passed since the first attempt.
    public var totalTimeLimit: Duration
    /// Retries after a stall, at most: each stall has already cost the stall watchdog's wait.
    public var maxStallRetries: Int

    public init(maxRetries: Int, initialDelay: Duration, maxDelay: Duration, totalTimeLimit: Duration, maxStallRetries: Int? = nil) {
        self.maxRetries = maxRetries; self.initialDelay = initialDelay; self.maxDelay = maxDelay
        self.totalTimeLimit = totalTimeLimit; self.maxStallRetries = maxStallRetries ?? maxRetries
    }

    /// For API requests someone is waiting on: a server error shows within a second or so, a portal
    /// that accepts but never answers after two stall watchdogs.
    public static let standard = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(300),
                                             maxDelay: .seconds(30), totalTimeLimit: .seconds(120), maxStallRetries: 1)
    /// For package downloads: longer, so that a download rides out an outage of half a minute.
    public static let downloads = RetryPolicy(maxRetries: 7, initialDelay: .milliseconds(500),
                                              maxDelay: .seconds(30), totalTimeLimit: .seconds(120))
    public static let none = RetryPolicy(maxRetries: 0, initialDelay: .zero, maxDelay: .zero, totalTimeLimit: .zero)

    /// The one retry of a refused or unresolved connection comes this soon.
    public static let quickRetryDelay = Duration.milliseconds(200)

    /// However much progress a download keeps making, it is given up after this many attempts in all
    /// (each attempt is bounded in time by the stall watchdog).
    public static let maxAttemptsWithProgress = 500

    /// The pause before retry number `retry` (1-based) after `error`, or nil to give up.
    /// `jitter` in 0...1 scales the backoff between half and all of it (injectable for tests).
    public func delay(beforeRetry retry: Int, after error: HTTPError, elapsed: Duration,
                      jitter: Double = Double.random(in: 0...1)) -> Duration? {
        // Nothing listening, or no such name: one quick look again (a server restarting, a DNS
        // hiccup), then say so; the way curl behaves without --retry-connrefused.
        if error.isRefusedOrUnresolved { return retry == 1 && maxRetries > 0 ? Self.quickRetryDelay : nil }
        guard error.isTransient, retry <= maxRetries else { return nil }
        if case .stalled = error, retry > maxStallRetries { return nil }
        let wait: Duration
        if case .status(_, _, let retryAfter?) = error {
            wait = retryAfter
        } else {
            let exponent = Double(1 << min(retry - 1, 30))
            let backoff = min(initialDelay * exponent, maxDelay)
            wait = backoff * (0.5 + 0.5 * min(max(jitter, 0), 1))
        }
        guard elapsed + wait <= totalTimeLimit else { return nil }
        return wait
    }

    /// Parses `Retry-After`: delay-seconds or an HTTP date.
    public static func parseRetryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? .seconds(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds((date.timeIntervalSince(now) * 1000).clampedInt(in: 0...Int(Int32.max), rounding: .towardZero))
    }
}

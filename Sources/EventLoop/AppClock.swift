/// The time as mapbook reads it and waits it: the system's clock, or a test's own, so a test of
/// something that waits (a notice fading, the network monitor's pace) neither sleeps nor races.
public struct AppClock: Sendable {
    public var now: @Sendable () -> ContinuousClock.Instant
    /// Returns after `duration`, or at once when the task is cancelled (check `Task.isCancelled`).
    public var sleep: @Sendable (Duration) async -> Void

    public init(now: @escaping @Sendable () -> ContinuousClock.Instant, sleep: @escaping @Sendable (Duration) async -> Void) {
        self.now = now; self.sleep = sleep
    }

    public static let system = AppClock(now: { .now }, sleep: { try? await Task.sleep(for: $0) })
}

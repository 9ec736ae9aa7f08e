import Testing

/// Runs each of a test's cases at high priority. The test runner queues every test of the run at
/// the start, on Swift's two default-priority threads here; an `await` that resumes (a sleep that
/// ends, an answer that arrives) waits behind that queue, and beside busy processors it drains for
/// minutes. At high priority the test resumes on threads of its own: for tests that wait, with a
/// deadline, for something asynchronous. What they measure is unchanged; only the queue is passed.
public struct AheadOfQueuedTests: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A suite's own scope passes through: its tests each get theirs.
        guard testCase != nil else { return try await function() }
        try await withoutActuallyEscaping(function) { function in
            try await Task(priority: .high) { try await function() }.value
        }
    }
}

extension Trait where Self == AheadOfQueuedTests {
    /// See `AheadOfQueuedTests`.
    public static var aheadOfQueuedTests: Self { Self() }
}

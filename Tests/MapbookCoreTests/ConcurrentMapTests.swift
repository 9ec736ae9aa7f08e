import MapbookCore
import Synchronization
import Testing

@Suite struct ConcurrentMapTests {
    /// How many transforms run at once, and the most seen.
    final class Gauge: Sendable {
        private let counts = Mutex((now: 0, most: 0))
        func enter() { counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
        func leave() { counts.withLock { $0.now -= 1 } }
        var most: Int { counts.withLock { $0.most } }
    }

    @Test func atMostSoManyRunAtOnceAndTheOrderIsKept() async {
        let gauge = Gauge()
        let doubled = await Array(0..<40).concurrentMap(atMost: 3) { value in
            gauge.enter()
            try? await Task.sleep(for: .milliseconds(value % 5))
            gauge.leave()
            return value * 2
        }
        #expect(doubled == (0..<40).map { $0 * 2 })
        #expect(gauge.most <= 3 && gauge.most >= 1)
    }
}

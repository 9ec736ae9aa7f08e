import Foundation
import LoopbackHTTP

/// A counter that a server handler (on another thread) and the test can both read.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    /// Increments and returns the new value.
    func next() -> Int { lock.withLock { count += 1; return count } }
    var value: Int { lock.withLock { count } }
}

/// Deterministic bytes that differ at every offset, so a splice in the wrong place shows.
func sampleBytes(_ count: Int, seed: UInt8 = 7) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ ($0 >> 8)) })
}

func temporaryPath(_ name: String = UUID().uuidString) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-tests", isDirectory: true)
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name).path
}

let fileDate = Date(timeIntervalSince1970: 1_700_000_000)

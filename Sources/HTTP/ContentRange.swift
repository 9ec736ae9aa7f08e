import Foundation

/// `Content-Range: bytes 100-199/1000` (total may be `*`).
struct ContentRange {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ value: String?) {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        let bounds = parts.first?.split(separator: "-") ?? []
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), end >= start else { return nil }
        self.start = start
        self.end = end
        total = parts.count == 2 ? Int64(parts[1]) : nil
    }

    /// The size a 416 answer reports: `bytes */1000`.
    static func unsatisfiedTotal(_ value: String?) -> Int64? {
        guard let value, value.hasPrefix("bytes */") else { return nil }
        return Int64(value.dropFirst(8))
    }
}

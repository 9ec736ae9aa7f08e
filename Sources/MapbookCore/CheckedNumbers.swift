/// Numbers from a server or a file are untrusted: a Double converted to an integer past the
/// integer's range stops the program. Every such conversion in mapbook goes through here (a test
/// reads the sources to keep it so): `int(in:)` when a value out of range is a fault to say,
/// `clampedInt(in:)` when it only needs to land somewhere sane (a pixel, a percentage shown).
extension BinaryFloatingPoint {
    // Inlinable: a drawing converts a few million coordinates, and the generic, unspecialized
    // across modules, cost a fifth of the first frame (perf, 2026-11-27).

    /// The whole number this rounds to, when it is finite and within `range`; nil otherwise.
    @inlinable
    public func int(in range: ClosedRange<Int> = Int.min...Int.max,
                    rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int? {
        let whole = Double(self).rounded(rule)
        guard whole.isFinite, abs(whole) <= Self.exactLimit else { return nil }
        let value = Int(whole)
        return range.contains(value) ? value : nil
    }

    /// As `int(in:)`, for 64-bit counts (bytes, dates in milliseconds).
    @inlinable
    public func int64(in range: ClosedRange<Int64> = Int64.min...Int64.max,
                      rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64? {
        int(in: Int(range.lowerBound)...Int(range.upperBound), rounding: rule).map(Int64.init)
    }

    /// The whole number this rounds to, brought into `range`: not-a-number as the bound nearest
    /// zero, infinities and anything past the range as its bound.
    @inlinable
    public func clampedInt(in range: ClosedRange<Int> = -Self.wholeLimit...Self.wholeLimit,
                           rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
        let whole = Double(self).rounded(rule)
        guard !whole.isNaN else { return min(max(0, range.lowerBound), range.upperBound) }
        if whole <= Double(range.lowerBound) { return range.lowerBound }
        if whole >= Double(range.upperBound) { return range.upperBound }
        return Int(whole)
    }

    /// The default clamp: every whole number a Double holds exactly (2^53), far from overflow
    /// when added or multiplied by a few.
    @inlinable
    public static var wholeLimit: Int { 1 << 53 }

    /// Past this a Double's whole number may not fit an Int (Int.max is not a Double).
    @usableFromInline
    static var exactLimit: Double { 9.2e18 }
}

extension JSONValue {
    /// A whole number within `range` (a fraction rounded to the nearest), else nil: the one
    /// reading of an integer field from a server or a file.
    public func int(in range: ClosedRange<Int>) -> Int? { double?.int(in: range) }
}

/// A task group child's result with the position it belongs at. A struct on purpose: with a tuple
/// `(Int, Value)` as the child result type, optimized builds (Swift 6.3, -O) handed children wrong
/// indices (one crashed on an index out of range; one gave every result the first index).
public struct Indexed<Value: Sendable>: Sendable {
    public var index: Int
    public var value: Value

    public init(_ index: Int, _ value: Value) { self.index = index; self.value = value }
}

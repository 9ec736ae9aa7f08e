/// A task group child's result with the position it belongs at. A struct on purpose: with a tuple
/// `(Int, Value)` as the child result type, optimized builds (Swift 6.3, -O) handed children wrong
/// indices (one crashed on an index out of range; one gave every result the first index).
public struct Indexed<Value: Sendable>: Sendable {
    public var index: Int
    public var value: Value

    public init(_ index: Int, _ value: Value) { self.index = index; self.value = value }
}

extension Sequence where Element: Sendable {
    /// `transform` of every element, `atMost` at a time (by default all at once, a task each), the
    /// results in the sequence's order.
    public func concurrentMap<T: Sendable>(atMost width: Int = .max, _ transform: @escaping @Sendable (Element) async -> T) async -> [T] {
        let items = Array(self)
        return await withTaskGroup(of: Indexed<T>.self, returning: [T].self) { group in
            var results = [T?](repeating: nil, count: items.count)
            for (index, item) in items.enumerated() {
                if index >= Swift.max(width, 1), let done = await group.next() { results[done.index] = done.value }
                group.addTask { Indexed(index, await transform(item)) }
            }
            for await result in group { results[result.index] = result.value }
            // Every child answered its own index.
            return results.compactMap { $0 }
        }
    }
}

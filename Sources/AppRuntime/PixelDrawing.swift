import Synchronization

/// Whether the map view is drawn in pixels, and a terminal cell's size in pixels: set by the
/// terminal front end once it has asked the terminal (and again when a resize changes the cell),
/// read by the map view's drawing. Nil: the map is drawn in characters.
public final class PixelDrawing: Sendable {
    private let cell = Mutex<(width: Int, height: Int)?>(nil)

    public init() {}

    public var cellSize: (width: Int, height: Int)? { cell.withLock { $0 } }

    public func use(cellSize: (width: Int, height: Int)?) { cell.withLock { $0 = cellSize } }
}

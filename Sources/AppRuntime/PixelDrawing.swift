import Synchronization

/// Whether the map view is drawn in pixels, and a terminal cell's size in pixels: set by the
/// terminal front end once it has asked the terminal (and again when a resize changes the cell),
/// read by the map view's drawing. Nil: the map is drawn in characters.
public final class PixelDrawing: Sendable {
    private let cell = Mutex<(width: Int, height: Int)?>(nil)
    private let movesAtOnce = Mutex(false)

    public init() {}

    public var cellSize: (width: Int, height: Int)? { cell.withLock { $0 } }

    public func use(cellSize: (width: Int, height: Int)?) { cell.withLock { $0 = cellSize } }

    /// Whether a pan or a zoom first shows the last picture moved or scaled, while its own is drawn:
    /// worth it where showing a picture costs less than drawing one (kitty's, sixel's), not where
    /// it is not measured (iTerm2's PNG).
    public var showsMovesAtOnce: Bool {
        get { movesAtOnce.withLock { $0 } }
        set { movesAtOnce.withLock { $0 = newValue } }
    }
}

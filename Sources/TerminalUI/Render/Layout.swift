import MapRender
import TerminalCanvas

/// Where the main screen's parts go for a terminal size: the overview beside the list when there
/// is room, above it when the terminal is narrow.
public struct MainLayout: Equatable, Sendable {
    /// Below this the screen shows the "terminal too small" card instead.
    public static let minimumWidth = 40
    public static let minimumHeight = 10
    /// From this width on, the panes sit side by side.
    public static let splitWidth = 80
    /// Rows one list entry takes: title, snippet, status, and a blank line.
    public static let entryHeight = 4

    public let header: Rect
    public let overview: Rect
    public let separator: Rect
    public let list: Rect
    public let status: Rect
    public let isStacked: Bool

    public init(width: Int, height: Int) {
        header = Rect(x: 0, y: 0, width: width, height: 1)
        status = Rect(x: 0, y: height - 1, width: width, height: 1)
        let bodyTop = 1, bodyHeight = max(height - 2, 0)
        isStacked = width < Self.splitWidth
        if isStacked {
            let mapHeight = max(bodyHeight / 3, 4)
            overview = Rect(x: 0, y: bodyTop, width: width, height: mapHeight)
            separator = Rect(x: 0, y: bodyTop + mapHeight, width: width, height: 1)
            list = Rect(x: 0, y: bodyTop + mapHeight + 1, width: width, height: bodyHeight - mapHeight - 1)
        } else {
            let mapWidth = width * 2 / 5
            overview = Rect(x: 0, y: bodyTop, width: mapWidth, height: bodyHeight)
            separator = Rect(x: mapWidth, y: bodyTop, width: 1, height: bodyHeight)
            list = Rect(x: mapWidth + 1, y: bodyTop, width: width - mapWidth - 1, height: bodyHeight)
        }
    }

    public static func isTooSmall(width: Int, height: Int) -> Bool {
        width < minimumWidth || height < minimumHeight
    }

    /// The list's entries area: below its one-line caption.
    public var entries: Rect { Rect(x: list.x, y: list.y + 1, width: list.width, height: list.height - 1) }

    /// How many entries fit (the last may lack its blank line).
    public var listCapacity: Int { max((entries.height + 1) / Self.entryHeight, 1) }

    /// The visible row index at a screen position, given the first row shown.
    public func row(atX x: Int, y: Int, top: Int) -> Int? {
        guard entries.contains(x: x, y: y) else { return nil }
        let offset = y - entries.y
        guard offset % Self.entryHeight < Self.entryHeight - 1 else { return nil }
        return top + offset / Self.entryHeight
    }
}

import TerminalCanvas

/// Where every screen's parts go for a terminal: a pure function of its size, shared by the model
/// (paging, scrolling, what the mouse hit) and the renderer (drawing), so both agree.
public struct ScreenLayout: Equatable, Sendable {
    public let display: Display
    public let main: MainLayout

    public init(_ display: Display) {
        self.display = display
        main = MainLayout(width: display.width, height: display.height)
    }

    public var isTooSmall: Bool { MainLayout.isTooSmall(width: display.width, height: display.height) }

    /// The map view's picture: everything between the header and the footer.
    public var mapRect: Rect { Self.mapRect(width: display.width, height: display.height) }

    public static func mapRect(width: Int, height: Int) -> Rect {
        Rect(x: 0, y: 1, width: width, height: max(height - 2, 0))
    }

    /// How wide the directions panel at the map's right is: two fifths of the map, within 38 to 60
    /// columns (never more than the map less four).
    public static func directionsPanelWidth(mapWidth: Int) -> Int {
        min(max(mapWidth * 2 / 5, 38), 60, max(mapWidth - 4, 10))
    }

    /// The details document's text area.
    public var detailsBody: Rect { Rect(x: 2, y: 2, width: display.width - 4, height: display.height - 3) }

    /// The help card over the screen, its text area, and its lines.
    public func help(_ bindings: [KeyBinding] = KeyMap.bindings) -> (card: Rect, body: Rect, lines: [[StyledText]]) {
        let width = display.width, height = display.height
        let cardWidth = min(width - 4, 76)
        let bodyWidth = cardWidth - 4
        let lines = HelpDocument.lines(width: bodyWidth, bindings: bindings)
        let cardHeight = min(lines.count + 2, height - 2)
        let card = Rect(x: (width - cardWidth) / 2, y: max((height - cardHeight) / 2, 1), width: cardWidth, height: cardHeight)
        return (card, Rect(x: card.x + 2, y: card.y + 1, width: bodyWidth, height: cardHeight - 2), lines)
    }
}

/// Where the main screen's parts go for a terminal size: the overview beside the list when there
/// is room, above it when the terminal is narrow.
public struct MainLayout: Equatable, Sendable {
    /// Below this the screen shows the "terminal too small" card instead.
    public static let minimumWidth = 40
    public static let minimumHeight = 10
    /// From this width on, the panes sit side by side.
    public static let splitWidth = 80
    /// Rows one list entry takes: title, snippet, status, when it was updated, and a blank line (the
    /// thumbnail beside them is four rows high).
    public static let entryHeight = 5

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

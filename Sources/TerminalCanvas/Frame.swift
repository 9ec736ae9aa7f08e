/// A colour of the xterm 256-colour palette. The backend maps it down on terminals with fewer colours.
public typealias PaletteIndex = UInt8

/// How a cell is drawn: colours (nil = the terminal's default) and attributes.
public struct CellStyle: Hashable, Sendable {
    public var foreground: PaletteIndex?
    public var background: PaletteIndex?
    public var bold: Bool
    public var dim: Bool
    public var reverse: Bool
    public var underline: Bool

    public init(foreground: PaletteIndex? = nil, background: PaletteIndex? = nil, bold: Bool = false,
                dim: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.foreground = foreground; self.background = background
        self.bold = bold; self.dim = dim; self.reverse = reverse; self.underline = underline
    }

    public static let plain = CellStyle()
}

/// One terminal cell. A character two columns wide occupies its cell and marks the next one as its
/// continuation, which the backend skips.
public struct Cell: Hashable, Sendable {
    public var character: Character
    public var style: CellStyle
    public var isContinuation: Bool

    public init(_ character: Character = " ", style: CellStyle = .plain, isContinuation: Bool = false) {
        self.character = character; self.style = style; self.isContinuation = isContinuation
    }

    public static let blank = Cell()
}

/// A rectangle of cells; x grows to the right, y downwards.
public struct Rect: Hashable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = max(width, 0); self.height = max(height, 0)
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width == 0 || height == 0 }

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    /// The rectangle `cells` in from each side: a card's inside, within its border.
    public func inset(by cells: Int) -> Rect { Rect(x: x + cells, y: y + cells, width: width - 2 * cells, height: height - 2 * cells) }
}

/// The screen as a grid of cells: what `render` produces and the backend puts on the terminal.
/// Drawing is clipped to the frame, so no caller can write outside it whatever the sizes.
public struct Frame: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(width, 0); self.height = max(height, 0)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set {
            guard x >= 0, x < width, y >= 0, y < height else { return }
            cells[y * width + x] = newValue
        }
    }

    /// Changes the style of every cell of `rect` (within the frame), keeping its character.
    public mutating func restyle(_ rect: Rect, _ change: (CellStyle) -> CellStyle) {
        for y in max(rect.y, 0)..<min(rect.maxY, height) {
            for x in max(rect.x, 0)..<min(rect.maxX, width) { cells[y * width + x].style = change(cells[y * width + x].style) }
        }
    }

    /// Copies `other` in with its top left at `origin`, as much of it as fits in `clip` (and the frame).
    public mutating func paste(_ other: Frame, at origin: (x: Int, y: Int), clip: Rect? = nil) {
        let limit = clip ?? bounds
        for y in 0..<other.height where limit.contains(x: limit.x, y: origin.y + y) {
            for x in 0..<other.width where limit.contains(x: origin.x + x, y: origin.y + y) {
                self[origin.x + x, origin.y + y] = other[x, y]
            }
        }
    }

    /// Writes `text` from (x, y), never past `limit` (a column, exclusive) or the frame's edge.
    /// Returns the column after the last character written. A wide character that does not fit is
    /// left out rather than cut in half.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .plain, limit: Int? = nil) -> Int {
        guard y >= 0, y < height else { return x }
        let end = min(limit ?? width, width)
        var column = x
        for character in text {
            let w = DisplayWidth.of(character)
            if w == 0 { continue }
            if column + w > end { break }
            if column >= 0 {
                cells[y * width + column] = Cell(character, style: style)
                if w == 2, column + 1 < width { cells[y * width + column + 1] = Cell(" ", style: style, isContinuation: true) }
            }
            column += w
        }
        return column
    }

    /// `put`, over a picture: each cell the text covers keeps the background it had (names on a map).
    @discardableResult
    public mutating func putOver(_ text: String, x: Int, y: Int, style: CellStyle, limit: Int? = nil) -> Int {
        guard y >= 0, y < height else { return x }
        let start = max(x, 0), end = max(min(x + DisplayWidth.of(text), limit ?? width, width), start)
        let backgrounds = (start..<end).map { self[$0, y].style.background }
        let next = put(text, x: x, y: y, style: style, limit: limit)
        for (offset, background) in backgrounds.enumerated() { self[start + offset, y].style.background = background }
        return next
    }

    /// Sets every cell of `rect` (clipped) to `cell`.
    public mutating func fill(_ rect: Rect, with cell: Cell = .blank) {
        for y in max(rect.y, 0)..<min(rect.maxY, height) where max(rect.x, 0) < min(rect.maxX, width) {
            for x in max(rect.x, 0)..<min(rect.maxX, width) { cells[y * width + x] = cell }
        }
    }

    /// The characters, one line per row, trailing blanks removed: what snapshot tests compare.
    public var text: String {
        (0..<height).map { row(at: $0) }.joined(separator: "\n")
    }

    /// One row's characters, trailing blanks removed.
    public func row(at y: Int) -> String {
        var line = ""
        for x in 0..<width where !cells[y * width + x].isContinuation { line.append(cells[y * width + x].character) }
        while line.last == " " { line.removeLast() }
        return line
    }
}

/// A run of cells to write on one row, from column `x`: what the terminal needs to turn one frame
/// into the next. A wide character's continuation cell travels in the run after it; a backend
/// writes the wide character and skips its continuation.
public struct FrameChange: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var cells: [Cell]

    public init(x: Int, y: Int, cells: [Cell]) { self.x = x; self.y = y; self.cells = cells }
}

extension Frame {
    /// The cells that differ from `previous` — character, style, or being a continuation — as runs
    /// of adjacent cells, row by row, left to right. With no previous frame, or one of another
    /// size, every row in full (the terminal's content is unknown). A changed continuation cell
    /// takes its wide character along, since a terminal draws both halves from that character; a
    /// run never starts on a continuation cell (unless the frame itself begins a row with one).
    public func changes(from previous: Frame?) -> [FrameChange] {
        guard let previous, previous.width == width, previous.height == height else {
            return (0..<height).map { FrameChange(x: 0, y: $0, cells: Array(cells[$0 * width..<($0 + 1) * width])) }
        }
        var changes: [FrameChange] = []
        var dirty = [Bool](repeating: false, count: width)
        for y in 0..<height {
            let row = y * width
            var any = false
            for x in 0..<width where cells[row + x] != previous.cells[row + x] {
                dirty[x] = true
                any = true
                // A run that starts on the right half of a wide character starts at its left half.
                if cells[row + x].isContinuation, x > 0 { dirty[x - 1] = true }
            }
            guard any else { continue }
            var x = 0
            while x < width {
                guard dirty[x] else { x += 1; continue }
                let start = x
                while x < width, dirty[x] || cells[row + x].isContinuation && x > start { x += 1 }
                changes.append(FrameChange(x: start, y: y, cells: Array(cells[row + start..<row + x])))
            }
            for i in 0..<width { dirty[i] = false }
        }
        return changes
    }
}

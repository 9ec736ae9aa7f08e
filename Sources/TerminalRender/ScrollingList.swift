import AppModel
import TerminalCanvas

/// One-line rows in a rectangle, scrolled so the selected row is in view — ratatui's `List` with
/// its `ListState`: which rows show, the line each goes on, and the selected row's band across the
/// rectangle. The cards over the map and the Maps card draw only a row's text through it; the
/// scrolling rule itself is `ListCursor.top`.
struct ScrollingList {
    var count: Int
    var selection: Int
    /// A row further down to bring into view with the selection when there is room (the selected
    /// layer's legend below it); the selection itself always stays in view.
    var alsoShowing: Int?

    init(count: Int, selection: Int, alsoShowing: Int? = nil) {
        self.count = count; self.selection = selection; self.alsoShowing = alsoShowing
    }

    /// The first row shown in `visible` lines.
    func top(visible: Int) -> Int {
        let wanted = min(max(alsoShowing ?? selection, selection), max(count - 1, 0))
        return min(ListCursor.top(keeping: wanted, count: count, visible: visible), max(selection, 0))
    }

    /// Draws the rows that fit in `rect`, one a line, through `row(index, line, isSelected, &frame)`;
    /// with a `band`, the selected row's line is filled with it first. Rows out of view above or
    /// below are shown by an arrow in the rectangle's last column (the cards' margin), first or
    /// last line.
    func draw(in rect: Rect, into frame: inout Frame, band: CellStyle? = nil, ascii: Bool,
              row: (_ index: Int, _ line: Rect, _ isSelected: Bool, _ frame: inout Frame) -> Void) {
        guard rect.height > 0, count > 0 else { return }
        let top = top(visible: rect.height)
        let end = min(top + rect.height, count)
        for index in top..<end {
            let line = Rect(x: rect.x, y: rect.y + index - top, width: rect.width, height: 1)
            let isSelected = index == selection
            if isSelected, let band { frame.fill(line, with: Cell(" ", style: band)) }
            row(index, line, isSelected, &frame)
        }
        guard rect.width > 1 else { return }
        for (hidden, y, arrow) in [(top > 0, rect.y, ascii ? "^" : "▲"), (end < count, rect.maxY - 1, ascii ? "v" : "▼")] where hidden {
            frame[rect.maxX - 1, y] = Cell(Character(arrow), style: frame[rect.maxX - 1, y].style.overlaid(by: CellStyle(bold: true)))
        }
    }
}

import MapRender
import TerminalCanvas

/// The interface's symbols, with plain-ASCII stand-ins for `--ascii`.
struct Glyphs {
    let online: String, offline: String, connecting: String
    let vertical: String, horizontal: String, marker: String, breadcrumb: String
    let boxTop: (left: String, right: String), boxBottom: (left: String, right: String)

    init(_ set: GlyphSet) {
        switch set {
        case .unicode:
            online = "●"; offline = "○"; connecting = "◌"
            vertical = "│"; horizontal = "─"; marker = "▌"; breadcrumb = "›"
            boxTop = ("╭", "╮"); boxBottom = ("╰", "╯")
        case .ascii:
            online = "*"; offline = "o"; connecting = "."
            vertical = "|"; horizontal = "-"; marker = ">"; breadcrumb = ">"
            boxTop = ("+", "+"); boxBottom = ("+", "+")
        }
    }
}

/// A run of text in one style; a document line is a list of them.
struct Span {
    var text: String
    var style: CellStyle
    init(_ text: String, _ style: CellStyle = .plain) { self.text = text; self.style = style }
}

extension Frame {
    /// Draws spans one after the other from (x, y), clipped at `limit`; returns the next column.
    @discardableResult
    mutating func put(_ spans: [Span], x: Int, y: Int, limit: Int, base: CellStyle = .plain) -> Int {
        var column = x
        for span in spans { column = put(span.text, x: column, y: y, style: base.overlaid(by: span.style), limit: limit) }
        return column
    }

    /// Text centred in `rect` on row `y`.
    mutating func putCentred(_ text: String, in rect: Rect, y: Int, style: CellStyle) {
        let text = DisplayWidth.truncated(text, to: rect.width)
        put(text, x: rect.x + max((rect.width - DisplayWidth.of(text)) / 2, 0), y: y, style: style, limit: rect.maxX)
    }
}

extension CellStyle {
    /// This style with `other`'s colours and attributes added on top.
    func overlaid(by other: CellStyle) -> CellStyle {
        CellStyle(foreground: other.foreground ?? foreground, background: other.background ?? background,
                  bold: bold || other.bold, dim: dim || other.dim, reverse: reverse != other.reverse,
                  underline: underline || other.underline)
    }
}

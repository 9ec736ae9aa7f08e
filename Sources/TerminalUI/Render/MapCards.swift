import AppModel
import Foundation
import MapRender
import MapbookCore
import TerminalCanvas

/// `i`'s card at the bottom left of the map: the feature's title, its layer, its fields and its
/// text; with several hits, which one of how many.
enum IdentifyCard {
    static func draw(_ found: IdentifyState, in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let width = min(max(rect.width / 2, 36), max(rect.width - 4, 10))
        let inner = max(width - 4, 1)
        var lines: [(String, CellStyle)] = []
        var heading = "Identify"
        switch (found.hits, found.shown) {
        case (nil, _):
            lines.append((options.glyphs == .unicode ? "Looking…" : "Looking...", theme.card.overlaid(by: theme.dim)))
        case (let hits?, let hit?):
            if hits.count > 1 { heading += " · \(found.index + 1) of \(hits.count)" }
            lines.append((hit.card.title, theme.card.overlaid(by: CellStyle(bold: true))))
            lines.append((hit.card.layer, theme.card.overlaid(by: theme.dim)))
            let labelWidth = min(hit.card.rows.map { DisplayWidth.of($0.label) }.max() ?? 0, inner / 2)
            for row in hit.card.rows {
                let cut = DisplayWidth.truncated(row.label, to: labelWidth)
                let label = cut + String(repeating: " ", count: max(labelWidth - DisplayWidth.of(cut), 0))
                for (index, part) in DisplayWidth.wrapped(row.value.isEmpty ? "—" : row.value, width: max(inner - labelWidth - 2, 1)).enumerated() {
                    lines.append(((index == 0 ? label : String(repeating: " ", count: labelWidth)) + "  " + part, theme.card))
                }
            }
            if let text = hit.card.text {
                lines.append(("", theme.card))
                for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    lines += DisplayWidth.wrapped(String(paragraph), width: inner).map { ($0, theme.card) }
                }
            }
        case (_?, nil):
            lines.append(("Nothing here: no feature within a cell of the centre.", theme.card.overlaid(by: theme.dim)))
        }
        let height = min(lines.count + 2, max(rect.height - 2, 3))
        let card = Rect(x: rect.x + 2, y: rect.maxY - height - 1, width: width, height: height)
        DocumentScreen.drawCard(card, title: heading, into: &frame, options: options)
        for (offset, line) in lines.prefix(height - 2).enumerated() {
            frame.put(DisplayWidth.truncated(line.0, to: inner), x: card.x + 2, y: card.y + 1 + offset, style: line.1, limit: card.maxX - 2)
        }
        let keys = (found.hits?.count ?? 0) > 1 ? " Tab next · Esc close " : " Esc close "
        frame.put(keys, x: card.maxX - 2 - DisplayWidth.of(keys), y: card.maxY - 1, style: theme.card, limit: card.maxX - 1)
    }
}

/// `L`: the layers, operational first, each with a box for shown or hidden and its legend under
/// it (a swatch in its colour and what it stands for).
enum LayerListPanel {
    static func draw(_ map: MapViewState, in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let ascii = options.glyphs == .ascii
        let rows = map.panelRows
        // One line per layer, then one per legend entry; the selected layer's line is kept in view.
        var lines: [(text: String, swatch: LegendEntry?, row: Int?)] = []
        for (index, name) in rows.enumerated() {
            lines.append(((map.hiddenLayers.contains(name) ? "[ ] " : "[x] ") + name, nil, index))
            for entry in map.legend[name] ?? [] { lines.append((entry.label, entry, nil)) }
        }
        let width = min(max((lines.map { DisplayWidth.of($0.text) + ($0.swatch == nil ? 0 : 6) }.max() ?? 0) + 6, 30), max(rect.width - 4, 10))
        let height = min(lines.count + 2, max(rect.height - 2, 3))
        let card = Rect(x: rect.maxX - width - 2, y: rect.y + 1, width: width, height: height)
        DocumentScreen.drawCard(card, title: "Layers", into: &frame, options: options)
        let visible = height - 2
        let selectedLine = lines.firstIndex { $0.row == map.panelSelection } ?? 0
        // The selected layer's legend shows below it when there is room.
        let legendBelow = lines[(selectedLine + 1)...].prefix { $0.row == nil }.count
        let wanted = min(selectedLine + legendBelow, lines.count - 1)
        let top = min(max(wanted - visible + 1, 0), max(selectedLine, 0), max(lines.count - visible, 0))
        for (offset, line) in lines.enumerated().dropFirst(top).prefix(visible) {
            let y = card.y + 1 + offset - top
            if let entry = line.swatch {
                let swatch = CellStyle(foreground: theme.colors ? entry.color : nil, background: theme.card.background, bold: true)
                frame.put(String(entry.glyph(ascii: ascii)), x: card.x + 6, y: y, style: swatch, limit: card.maxX - 2)
                frame.put(DisplayWidth.truncated(line.text, to: card.width - 11), x: card.x + 8, y: y, style: theme.card, limit: card.maxX - 2)
                continue
            }
            let selected = line.row == map.panelSelection
            let style = selected ? theme.card.overlaid(by: CellStyle(reverse: true)) : theme.card
            if selected { frame.fill(Rect(x: card.x + 1, y: y, width: card.width - 2, height: 1), with: Cell(" ", style: style)) }
            frame.put(DisplayWidth.truncated(line.text, to: card.width - 4), x: card.x + 2, y: y, style: style, limit: card.maxX - 2)
        }
    }
}

import AppModel
import MapRender
import MapbookCore
import TerminalCanvas

/// Screens that show a document: details full screen, help as a card over whatever is below.
enum DocumentScreen {
    static func drawDetails(_ state: AppState, scroll: Int, layout: ScreenLayout, into frame: inout Frame, options: RenderOptions) {
        let title = state.selectedRow.map { state.title(of: $0) } ?? ""
        Renderer.drawHeader([state.catalog.webMapItem?.title ?? "", title].filter { !$0.isEmpty } + ["Details"],
                            right: state.portal.headerName, into: &frame, options: options)
        var body = layout.detailsBody
        // A large thumbnail at the top right when there is room; the text beside and below it.
        if body.width >= 72, body.height >= 10, let item = state.selectedRow.flatMap(state.item(of:)),
           let image = state.catalog.thumbnails[item.id] {
            let picture = Rect(x: body.maxX - 25, y: body.y, width: 24, height: 8)
            ImageArt.draw(image, into: &frame, rect: picture, glyphs: options.glyphs, colors: options.theme.colors)
            body = Rect(x: body.x, y: body.y, width: body.width - 27, height: body.height)
        }
        let lines = DetailsDocument.lines(state, width: body.width).map { options.theme.spans($0) }
        let scroll = drawLines(lines, scroll: scroll, in: body, into: &frame)
        let position = lines.count > body.height ? "\(scroll + 1)–\(min(scroll + body.height, lines.count)) of \(lines.count)" : ""
        Renderer.drawStatusBar(state, hints: FocusKeys.of(state)?.joined(separator: "  ") ?? "↑↓ PgUp PgDn scroll  Esc back  ? help  q quit", position: position,
                               into: &frame, options: options)
    }

    static func drawHelp(scroll: Int, layout: ScreenLayout, bindings: [KeyBinding], into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let (card, body, document) = layout.help(bindings)
        let lines = document.map { theme.spans($0) }
        drawCard(card, title: "Keys", into: &frame, options: options)
        let scroll = drawLines(lines, scroll: scroll, in: body, into: &frame, base: theme.card)
        let more = lines.count > body.height ? " \(scroll + 1)–\(min(scroll + body.height, lines.count)) of \(lines.count) · ↑↓ " : ""
        let closing = " Esc close "
        frame.put(more + closing, x: card.maxX - 2 - DisplayWidth.of(more + closing), y: card.maxY - 1, style: theme.card)
    }

    /// The place search near the top of the screen: the line typed, the suggestions (the chosen one
    /// marked), and what the geocoder is doing.
    static func drawSearch(_ search: PlaceSearch, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let width = min(max(frame.width - 4, 20), 72)
        let status: String? = switch search.status {
        case .asking: options.glyphs == .unicode ? "Asking the geocoder…" : "Asking the geocoder..."
        case .nothingFound: "No place found."
        case .failed(let sentence): sentence
        case .idle where search.text.isEmpty: search.purpose.fallbackLine ?? "Type a place or an address."
        case .idle where search.text.count < 2: "Type a place or an address."
        case .idle: search.offline ? "Offline: names on this device." : nil
        }
        let rows = search.suggestions.count + (status == nil ? 0 : 1)
        let card = Rect(x: (frame.width - width) / 2, y: min(2, max(frame.height - 5 - rows, 0)), width: width,
                        height: min(3 + rows, max(frame.height - 2, 3)))
        drawCard(card, title: search.purpose.title, into: &frame, options: options)
        let cursor = options.glyphs == .unicode ? "▏" : "_"
        frame.put(DisplayWidth.truncated("> " + search.text, to: card.width - 6) + cursor, x: card.x + 2, y: card.y + 1,
                  style: theme.card.overlaid(by: CellStyle(bold: true)), limit: card.maxX - 2)
        var y = card.y + 2
        for (index, suggestion) in search.suggestions.enumerated() where y < card.maxY - 1 {
            let style = index == search.selection ? theme.card.overlaid(by: CellStyle(reverse: true)) : theme.card
            if index == search.selection { frame.fill(Rect(x: card.x + 1, y: y, width: card.width - 2, height: 1), with: Cell(" ", style: style)) }
            frame.put(DisplayWidth.truncated(suggestion.text, to: card.width - 6), x: card.x + 3, y: y, style: style, limit: card.maxX - 2)
            y += 1
        }
        if let status, y < card.maxY - 1 {
            frame.put(DisplayWidth.truncated(status, to: card.width - 6), x: card.x + 3, y: y, style: theme.card.overlaid(by: theme.dim),
                      limit: card.maxX - 2)
        }
        let keys = FocusKeys.fitted(FocusKeys.search, width: card.width - 4)
        frame.put(keys, x: card.maxX - 2 - DisplayWidth.of(keys), y: card.maxY - 1, style: theme.card, limit: card.maxX - 1)
    }

    /// A question over the screen: what will happen, and the keys that answer.
    static func drawConfirmation(_ confirmation: Confirmation, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let width = min(frame.width - 4, 60), textWidth = width - 4
        let question = DisplayWidth.wrapped(confirmation.question, width: textWidth)
        let detail = DisplayWidth.wrapped(confirmation.detail, width: textWidth)
        let height = min(question.count + detail.count + 5, frame.height - 2)
        let card = Rect(x: (frame.width - width) / 2, y: max((frame.height - height) / 2, 1), width: width, height: height)
        drawCard(card, title: "Confirm", into: &frame, options: options)
        let lines = question.map { Span($0, theme.card.overlaid(by: theme.title)) } + detail.map { Span($0, theme.card) }
            + [Span(""), Span(confirmation.answers, theme.card.overlaid(by: CellStyle(bold: true)))]
        for (offset, line) in lines.enumerated() where card.y + 1 + offset < card.maxY - 1 {
            frame.put(line.text, x: card.x + 2, y: card.y + 1 + offset, style: line.style, limit: card.maxX - 2)
        }
    }

    /// A bordered card, blank inside, with its title on the top border.
    static func drawCard(_ card: Rect, title: String, into frame: inout Frame, options: RenderOptions) {
        let glyphs = Glyphs(options.glyphs), theme = options.theme
        frame.fill(card, with: Cell(" ", style: theme.card))
        let horizontal = String(repeating: glyphs.horizontal, count: max(card.width - 2, 0))
        frame.put(glyphs.boxTop.left + horizontal + glyphs.boxTop.right, x: card.x, y: card.y, style: theme.card)
        frame.put(glyphs.boxBottom.left + horizontal + glyphs.boxBottom.right, x: card.x, y: card.maxY - 1, style: theme.card)
        for y in card.y + 1..<max(card.maxY - 1, card.y + 1) {
            frame.put(glyphs.vertical, x: card.x, y: y, style: theme.card)
            frame.put(glyphs.vertical, x: card.maxX - 1, y: y, style: theme.card)
        }
        frame.put(" \(title) ", x: card.x + 2, y: card.y, style: theme.card.overlaid(by: CellStyle(bold: true)))
    }

    /// Draws the lines from `scroll` (clamped) into `rect`; returns the scroll used.
    @discardableResult
    static func drawLines(_ lines: [[Span]], scroll: Int, in rect: Rect, into frame: inout Frame,
                                  base: CellStyle = .plain) -> Int {
        let first = min(max(scroll, 0), max(lines.count - rect.height, 0))
        for (offset, line) in lines.dropFirst(first).prefix(rect.height).enumerated() {
            frame.put(line, x: rect.x, y: rect.y + offset, limit: rect.maxX, base: base)
        }
        return first
    }
}

/// `M`: the Maps card — its tabs, the chosen tab's web maps (title, folder or group, owner, date,
/// "Offline"), the selected one reversed, or why the tab is empty.
enum WebMapsCard {
    static func draw(_ maps: WebMapsBrowser, state: AppState, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme, unicode = options.glyphs == .unicode
        let width = min(max(frame.width - 6, 30), 110)
        let height = min(max(frame.height - 6, 9), 26)
        let card = Rect(x: (frame.width - width) / 2, y: max((frame.height - height) / 2, 1), width: width, height: height)
        DocumentScreen.drawCard(card, title: "Maps", into: &frame, options: options)
        var x = card.x + 2
        for tab in WebMapsTab.allCases {
            let label = " \(tab.title) "
            x = frame.put(label, x: x, y: card.y + 1, style: tab == maps.tab ? theme.card.overlaid(by: CellStyle(bold: true, reverse: true)) : theme.card,
                          limit: card.maxX - 2) + 1
        }
        if maps.tab == .search { drawQuery(maps, card: card, into: &frame, options: options) }
        let rows = maps.rows, visible = height - 6
        var list = Rect(x: card.x + 1, y: card.y + 3, width: card.width - 2, height: visible)
        // The chosen web map's thumbnail at the right when there is room.
        if list.width >= 76, visible >= 8, rows.indices.contains(maps.selection), let image = state.catalog.thumbnails[rows[maps.selection].id] {
            ImageArt.draw(image, into: &frame, rect: Rect(x: list.maxX - 25, y: list.y, width: 24, height: 8), glyphs: options.glyphs, colors: theme.colors)
            list.width -= 27
        }
        let inner = list.width - 2
        let titles = min(rows.map { DisplayWidth.of($0.title) }.max() ?? 0, inner * 3 / 5)
        let columns = fitted(columnWidths(rows), room: inner - titles - 2)
        ScrollingList(count: rows.count, selection: maps.selection).draw(in: list, into: &frame, ascii: options.glyphs == .ascii) { index, line, isSelected, frame in
            drawRow(rows[index], columns: columns, selected: isSelected && !maps.isTypingQuery, in: line, into: &frame, options: options)
        }
        frame.put(DisplayWidth.truncated(maps.status(unicode: unicode), to: card.width - 4), x: card.x + 2, y: card.maxY - 2,
                  style: theme.card.overlaid(by: maps.problems[maps.tab] == nil ? theme.dim : theme.error), limit: card.maxX - 2)
        // As many of the keys as the border has room for, the first ones first.
        let keys = FocusKeys.fitted(FocusKeys.maps(maps, state: state), width: card.width - 4)
        frame.put(keys, x: card.maxX - 2 - DisplayWidth.of(keys), y: card.maxY - 1, style: theme.card, limit: card.maxX - 1)
    }

    /// The Search tab's words, with a cursor while they are typed.
    private static func drawQuery(_ maps: WebMapsBrowser, card: Rect, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let label = "Search: "
        let room = card.width - 5 - DisplayWidth.of(label)
        // Long words show their end, where the typing is.
        var text = maps.query.isEmpty && !maps.isTypingQuery ? "/ to type" : maps.query
        while DisplayWidth.of(text) > room - 1, !text.isEmpty { text.removeFirst() }
        let end = frame.put(label, x: card.x + 2, y: card.y + 2, style: theme.card.overlaid(by: CellStyle(bold: true)))
        let after = frame.put(text, x: end, y: card.y + 2, style: maps.query.isEmpty ? theme.card.overlaid(by: theme.dim) : theme.card, limit: card.maxX - 2)
        if maps.isTypingQuery { frame.put(options.glyphs == .unicode ? "▏" : "_", x: after, y: card.y + 2, style: theme.card, limit: card.maxX - 2) }
    }

    /// The widest of each fact column over the tab's rows (0: a column no row has), up to a cap: a
    /// longer fact (a failure's sentence) makes its row say its facts in a line instead.
    static func columnWidths(_ rows: [MapListing]) -> [Int] {
        rows.reduce(into: [Int]()) { widths, row in
            for (index, fact) in row.factColumns.enumerated() {
                if index >= widths.count { widths.append(0) }
                let width = fact.map(DisplayWidth.of) ?? 0
                if width <= columnCap { widths[index] = max(widths[index], width) }
            }
        }
    }

    static let columnCap = 32

    /// The columns that fit `room`, dropping the owner, then where it was found, then the date
    /// (whether it is offline and here matter most in the field) until the rest fit.
    static func fitted(_ widths: [Int], room: Int) -> [Int] {
        var widths = widths
        func total() -> Int { widths.filter { $0 > 0 }.reduce(0) { $0 + $1 + 2 } - 2 }
        for dropped in [1, 0, 2] where total() > room && widths.indices.contains(dropped) { widths[dropped] = 0 }
        return widths
    }

    /// The facts lined up in the tab's columns when they fit them, else in a line.
    static func details(_ map: MapListing, columns: [Int]) -> String {
        let facts = map.factColumns
        guard facts.count == columns.count, zip(facts, columns).allSatisfy({ $1 == 0 || DisplayWidth.of($0 ?? "") <= $1 }) else {
            return map.facts.joined(separator: " · ")
        }
        // A fact in a column left out is left out: the other rows do without it too.
        return zip(facts, columns).filter { $1 > 0 }.map { fact, width in
            (fact ?? "") + String(repeating: " ", count: width - DisplayWidth.of(fact ?? ""))
        }.joined(separator: "  ")
    }

    /// A web map: its title, and at the right where it was found, its owner, when it changed, and
    /// whether it is set up for offline use and has areas on this device, each in its column.
    private static func drawRow(_ map: MapListing, columns: [Int], selected: Bool, in row: Rect, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let inner = row.width - 2
        let name = map.title.isEmpty ? "Untitled" : map.title
        let detailText = details(map, columns: columns)
        // The title first: it keeps at least three fifths of the row; the details get the rest.
        let titleRoom = min(DisplayWidth.of(name), max(inner * 3 / 5, inner - DisplayWidth.of(detailText) - 2))
        let right = DisplayWidth.truncated(detailText, to: max(inner - titleRoom - 2, 0))
        let title = DisplayWidth.truncated(name, to: titleRoom)
        let style = selected ? theme.card.overlaid(by: CellStyle(reverse: true)) : theme.card
        if selected { frame.fill(row, with: Cell(" ", style: style)) }
        frame.put(title, x: row.x + 1, y: row.y, style: style.overlaid(by: CellStyle(bold: true)), limit: row.maxX - 1)
        frame.put(right, x: row.maxX - 1 - DisplayWidth.of(right), y: row.y, style: selected ? style : style.overlaid(by: theme.dim), limit: row.maxX - 1)
    }

}

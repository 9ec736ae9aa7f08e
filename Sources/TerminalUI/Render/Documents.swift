import AppModel
import MapRender
import MapbookCore
import OfflineLibrary
import TerminalCanvas

/// Builds a scrollable document: lines of spans, wrapped to a width.
struct DocumentBuilder {
    private(set) var lines: [[Span]] = []
    let width: Int
    let theme: UITheme
    /// Field labels take this many columns, values the rest.
    static let labelWidth = 16

    init(width: Int, theme: UITheme) { self.width = max(width, 1); self.theme = theme }

    mutating func paragraph(_ text: String, style: CellStyle = .plain, indent: Int = 0) {
        for line in DisplayWidth.wrapped(text, width: max(width - indent, 1)) {
            lines.append([Span(String(repeating: " ", count: indent)), Span(line, style)])
        }
    }

    mutating func blank() { lines.append([]) }

    mutating func heading(_ text: String) {
        if !(lines.last?.isEmpty ?? true) { blank() }
        lines.append([Span(DisplayWidth.truncated(text, to: width), theme.heading)])
    }

    /// Narrower than this, a value goes under its label instead of beside it.
    static let minimumValueWidth = 32

    /// `Label           value`, the value wrapped under itself; on narrow screens the label on a
    /// line of its own and the value indented below it.
    mutating func field(_ label: String, _ value: String, style: CellStyle = .plain) {
        if width - Self.labelWidth - 2 < Self.minimumValueWidth {
            if !label.isEmpty { lines.append([Span(DisplayWidth.truncated(label, to: width), theme.label)]) }
            paragraph(value, style: style, indent: 2)
            return
        }
        let labelColumns = Self.labelWidth
        let wrapped = DisplayWidth.wrapped(value, width: max(width - labelColumns - 2, 1))
        for (offset, line) in (wrapped.isEmpty ? [""] : wrapped).enumerated() {
            let shownLabel = offset == 0 ? DisplayWidth.truncated(label, to: labelColumns) : ""
            let pad = String(repeating: " ", count: max(labelColumns - DisplayWidth.of(shownLabel), 0) + 2)
            lines.append([Span(shownLabel, theme.label), Span(pad), Span(line, style)])
        }
    }
}

/// What the details screen says about the selected row: everything the portal told us, and what is
/// on this device.
enum DetailsDocument {
    static func lines(_ state: AppState, width: Int, theme: UITheme) -> [[Span]] {
        var doc = DocumentBuilder(width: width, theme: theme)
        guard let row = state.selectedRow, let item = state.item(of: row) else {
            doc.paragraph("Nothing is selected.", style: theme.dim)
            return doc.lines
        }
        doc.paragraph(state.title(of: row), style: theme.title)
        if let snippet = item.snippet, !snippet.isEmpty { doc.paragraph(snippet, style: theme.dim) }
        if let description = item.description, !description.isEmpty {
            doc.heading("Description")
            doc.paragraph(description)
        }

        doc.heading("Item")
        doc.field("ID", item.id.rawValue)
        doc.field("Type", item.type.isEmpty ? "—" : item.type)
        doc.field("Owner", item.owner ?? "—")
        doc.field("Created", item.created.map(Format.date) ?? "—")
        doc.field("Modified", item.modified.map(Format.date) ?? "—")
        doc.field("Extent", item.extent.map(Format.extent) ?? "—")

        switch row {
        case .webMap:
            let total = state.areas.reduce(Int64(0)) { $0 + $1.size }
            doc.field("Map areas", state.areas.isEmpty ? "none" : "\(state.areas.count) · \(Format.bytes(total)) to download in all")
        case .area(let index):
            let area = state.areas[index]
            doc.field("Status", MainScreen.statusLine(row, state: state, theme: theme).map(\.text).joined())
            doc.heading("Packages")
            if area.packages.isEmpty { doc.paragraph("The portal lists no packages for this area.", style: theme.dim) }
            for package in area.packages {
                let size = package.size.map(Format.bytes) ?? "size unknown"
                let name = package.item.title.isEmpty ? package.item.id.rawValue : package.item.title
                doc.field("Package", [name, package.item.type, size].filter { !$0.isEmpty }.joined(separator: " · "))
            }
            doc.field("Download size", Format.bytes(area.size))
            doc.heading("On this device")
            onThisDevice(index, state: state, into: &doc, theme: theme)
        }

        doc.heading("Map")
        if let map = state.webMap {
            doc.field("Basemap", map.basemapTitle ?? "—")
            for layer in map.basemapLayers { doc.field("", layerLine(layer)) }
            doc.field("Layers", map.operationalLayers.isEmpty ? "none" : layerLine(map.operationalLayers[0]))
            for layer in map.operationalLayers.dropFirst() { doc.field("", layerLine(layer)) }
            doc.field("Bookmarks", map.bookmarks.first?.name ?? "none")
            for bookmark in map.bookmarks.dropFirst() { doc.field("", bookmark.name) }
            if let wkid = map.spatialReference?.latestWkid ?? map.spatialReference?.wkid { doc.field("Spatial ref.", "WKID \(wkid)") }
        } else {
            doc.paragraph("The web map's definition has not been loaded.", style: theme.dim)
        }
        return doc.lines
    }

    private static func onThisDevice(_ index: Int, state: AppState, into doc: inout DocumentBuilder, theme: UITheme) {
        let id = state.areas[index].item.id
        switch state.status(ofArea: index) {
        case .downloading(let progress, _):
            doc.field("Downloading", ProgressText.bar(fraction: progress.fraction, width: 22, ascii: false) + " "
                      + ProgressText.figures(bytes: progress.bytes, total: progress.total, bytesPerSecond: progress.bytesPerSecond))
        case .queued: doc.field("Download", "Queued")
        case .waitingForNetwork: doc.field("Download", "Waiting for the network; it resumes where it stopped.")
        case .failed(let sentence): doc.field("Download failed", sentence + " Press r to retry.", style: theme.error)
        default: break
        }
        guard let record = state.downloads[id] else {
            doc.field("Size on disk", "Not downloaded")
            return
        }
        doc.field("Size on disk", Format.bytes(record.size))
        doc.field("Downloaded", Format.timestamp(record.downloadedAt))
        doc.field("Verified", record.packages.map(\.verifiedBy).joined(separator: ", "))
        let update = record.needsUpdate(comparedWith: state.areas[index])
        doc.field("Update", update ? "Available: the portal has newer packages (u to update)"
                  : state.network == .offline ? "Up to date as of the last sync" : "Up to date")
    }

    private static func layerLine(_ layer: WebMapLayer) -> String {
        let title = layer.title ?? layer.id ?? "Untitled layer"
        return "\(title) (\(layer.layerType))" + (layer.visible ? "" : " · hidden")
    }
}

/// Help: the key map table, grouped by where each binding applies.
enum HelpDocument {
    static func lines(width: Int, theme: UITheme) -> [[Span]] {
        var doc = DocumentBuilder(width: width, theme: theme)
        for context in KeyContext.allCases {
            let bindings = KeyMap.bindings.filter { $0.context == context }
            guard !bindings.isEmpty else { continue }
            doc.heading(context.rawValue)
            for binding in bindings { doc.field(binding.label, binding.summary) }
        }
        return doc.lines
    }
}

/// Screens that show a document: details full screen, help as a card over whatever is below.
enum DocumentScreen {
    static func detailsBody(width: Int, height: Int) -> Rect {
        Rect(x: 2, y: 2, width: width - 4, height: height - 3)
    }

    static func drawDetails(_ state: AppState, into frame: inout Frame, options: RenderOptions) {
        let title = state.selectedRow.map { state.title(of: $0) } ?? ""
        Renderer.drawHeader([state.webMapItem?.title ?? "", title].filter { !$0.isEmpty } + ["Details"],
                            right: state.portalHost, into: &frame, options: options)
        let body = detailsBody(width: frame.width, height: frame.height)
        let lines = DetailsDocument.lines(state, width: body.width, theme: options.theme)
        let scroll = drawLines(lines, scroll: state.documentScroll, in: body, into: &frame)
        let position = lines.count > body.height ? "\(scroll + 1)–\(min(scroll + body.height, lines.count)) of \(lines.count)" : ""
        Renderer.drawStatusBar(state, hints: "↑↓ PgUp PgDn scroll  Esc back  ? help  q quit", position: position,
                               into: &frame, options: options)
    }

    static func helpGeometry(width: Int, height: Int, options: RenderOptions) -> (card: Rect, body: Rect, lines: [[Span]]) {
        let cardWidth = min(width - 4, 76)
        let bodyWidth = cardWidth - 4
        let lines = HelpDocument.lines(width: bodyWidth, theme: options.theme)
        let cardHeight = min(lines.count + 2, height - 2)
        let card = Rect(x: (width - cardWidth) / 2, y: max((height - cardHeight) / 2, 1), width: cardWidth, height: cardHeight)
        return (card, Rect(x: card.x + 2, y: card.y + 1, width: bodyWidth, height: cardHeight - 2), lines)
    }

    static func drawHelp(_ state: AppState, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let (card, body, lines) = helpGeometry(width: frame.width, height: frame.height, options: options)
        drawCard(card, title: "Keys", into: &frame, options: options)
        let scroll = drawLines(lines, scroll: state.documentScroll, in: body, into: &frame, base: theme.card)
        let more = lines.count > body.height ? " \(scroll + 1)–\(min(scroll + body.height, lines.count)) of \(lines.count) · ↑↓ " : ""
        let closing = " Esc close "
        frame.put(more + closing, x: card.maxX - 2 - DisplayWidth.of(more + closing), y: card.maxY - 1, style: theme.card)
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
            + [Span(""), Span("y yes, remove · n no, keep it", theme.card.overlaid(by: CellStyle(bold: true)))]
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
    private static func drawLines(_ lines: [[Span]], scroll: Int, in rect: Rect, into frame: inout Frame,
                                  base: CellStyle = .plain) -> Int {
        let first = min(max(scroll, 0), max(lines.count - rect.height, 0))
        for (offset, line) in lines.dropFirst(first).prefix(rect.height).enumerated() {
            frame.put(line, x: rect.x, y: rect.y + offset, limit: rect.maxX, base: base)
        }
        return first
    }
}

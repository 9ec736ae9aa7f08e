import AppModel
import Foundation
import Geometry
import MapRender
import MapbookCore
import TerminalCanvas

/// `i`'s card at the bottom left of the map: the feature's title, its layer, its fields and its
/// text; with several hits, which one of how many; in a downloaded area's map (`editable`), the
/// keys that edit the feature shown, as far as the border has room.
enum IdentifyCard {
    static func draw(_ found: IdentifyState, editable: Bool = false, in rect: Rect, into frame: inout Frame, options: RenderOptions) {
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
        var parts = (found.hits?.count ?? 0) > 1 ? ["Tab next"] : []
        if editable, found.shown?.feature != nil {
            parts += ["e edit", "X delete"]
            if case .points(let points)? = found.shown?.geometry, points.count == 1 { parts.append("v move") }
        }
        while DisplayWidth.of(" " + (parts + ["Esc close"]).joined(separator: " · ") + " ") > width - 4, !parts.isEmpty { parts.removeLast() }
        let keys = " " + (parts + ["Esc close"]).joined(separator: " · ") + " "
        frame.put(keys, x: card.maxX - 2 - DisplayWidth.of(keys), y: card.maxY - 1, style: theme.card, limit: card.maxX - 1)
    }
}

/// `L`: the layers, operational first, each with a box for shown or hidden and its legend under
/// it (a swatch in its colour and what it stands for).
enum LayerListPanel {
    static func draw(_ map: MapViewState, rows: [String], in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let ascii = options.glyphs == .ascii
        // One line per layer, then one per legend entry; the selected layer's line is kept in view.
        var lines: [(text: String, swatch: LegendEntry?, row: Int?)] = []
        for (index, name) in rows.enumerated() {
            // A layer only listed has nothing to show or hide: no box.
            let box = map.listedOnlyLayers.contains(name) ? "    " : map.hiddenLayers.contains(name) ? "[ ] " : "[x] "
            lines.append((box + name, nil, index))
            for entry in map.legend[name] ?? [] { lines.append((entry.label, entry, nil)) }
        }
        let width = min(max((lines.map { DisplayWidth.of($0.text) + ($0.swatch == nil ? 0 : 6) }.max() ?? 0) + 6, 30), max(rect.width - 4, 10))
        let height = min(lines.count + 2, max(rect.height - 2, 3))
        let card = Rect(x: rect.maxX - width - 2, y: rect.y + 1, width: width, height: height)
        DocumentScreen.drawCard(card, title: "Layers", into: &frame, options: options)
        let selectedLine = lines.firstIndex { $0.row == map.panelSelection } ?? 0
        // The selected layer's legend shows below it when there is room.
        let legendBelow = lines[(selectedLine + 1)...].prefix { $0.row == nil }.count
        let band = theme.card.overlaid(by: CellStyle(reverse: true))
        ScrollingList(count: lines.count, selection: selectedLine, alsoShowing: selectedLine + legendBelow)
            .draw(in: card.inset(by: 1), into: &frame, band: band, ascii: options.glyphs == .ascii) { index, row, isSelected, frame in
                let line = lines[index]
                if let entry = line.swatch {
                    // A dark symbol on the dark card (or a light one on a light card) gets a background it shows on.
                    let background = theme.card.background.map { card in entry.color.flatMap { XtermPalette.halo(for: $0, on: [card]) } ?? card }
                    let swatch = CellStyle(foreground: theme.colors ? entry.color : nil, background: theme.colors ? background : theme.card.background, bold: true)
                    frame.put(String(entry.glyph(ascii: ascii)), x: card.x + 6, y: row.y, style: swatch, limit: card.maxX - 2)
                    frame.put(DisplayWidth.truncated(line.text, to: card.width - 11), x: card.x + 8, y: row.y, style: theme.card, limit: card.maxX - 2)
                } else {
                    frame.put(DisplayWidth.truncated(line.text, to: card.width - 4), x: card.x + 2, y: row.y,
                              style: isSelected ? band : theme.card, limit: card.maxX - 2)
                }
            }
    }
}

/// A form in a card in the middle of the screen: its fields (the one with the cursor marked, a
/// secret as dots), a line saying what will happen or why it did not, and its keys.
enum FormCard {
    struct Field {
        var label: String
        var value: String
        var focused: Bool
        var secret = false
    }

    /// The form's fields as drawn: a choice between arrows, a secret as dots; a value that came
    /// from a file or a script (a feature's, `set`'s) sanitized, as every string is on its way out.
    static func fields(of form: Form, options: RenderOptions) -> [Field] {
        let arrows = options.glyphs == .unicode ? ("◂ ", " ▸") : ("< ", " >")
        return form.fields.enumerated().map { index, field in
            let shown = TerminalText.sanitizedLine(field.shown, maxLength: 65_536)
            return switch field.kind {
            case .choice: Field(label: field.label, value: arrows.0 + shown + arrows.1, focused: index == form.focus)
            case .secret: Field(label: field.label, value: field.text, focused: index == form.focus, secret: true)
            case .text, .integer, .decimal, .date: Field(label: field.label, value: shown, focused: index == form.focus)
            }
        }
    }

    /// `notes` go under the fields, a line each (dim, or in the error colour). Labels take
    /// `labelWidth` columns. Fields that do not fit the screen scroll with the cursor, the title
    /// saying which are shown.
    static func draw(title: String, width: Int, fields all: [Field], notes: [(text: String, isProblem: Bool)] = [], status: String,
                     isProblem: Bool, keys: String, labelWidth: Int = 10, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let width = min(max(frame.width - 8, 30), width)
        let notes = Array(notes.prefix(max(frame.height - all.count * 2 - 7, 0)))
        let room = max((frame.height - 7 - (notes.isEmpty ? 0 : notes.count + 1)) / 2, 1)
        var fields = all[...]
        var title = title
        if all.count > room {
            let focus = all.firstIndex { $0.focused } ?? 0
            let start = min(max(focus - room / 2, 0), all.count - room)
            fields = all[start..<(start + room)]
            title += " · \(start + 1)–\(start + room) of \(all.count)"
        }
        let height = fields.count * 2 + 5 + (notes.isEmpty ? 0 : notes.count + 1)
        let card = Rect(x: (frame.width - width) / 2, y: max((frame.height - height) / 2, 1), width: width, height: height)
        DocumentScreen.drawCard(card, title: title, into: &frame, options: options)
        for (offset, field) in fields.enumerated() {
            let y = card.y + 2 + offset * 2
            frame.put(DisplayWidth.truncated(field.label, to: labelWidth), x: card.x + 2, y: y, style: theme.card.overlaid(by: CellStyle(bold: field.focused)))
            var shown = field.secret ? String(repeating: options.glyphs == .unicode ? "•" : "*", count: field.value.count) : field.value
            let box = Rect(x: card.x + 2 + labelWidth, y: y, width: card.width - 5 - labelWidth, height: 1)
            // The end of what is typed stays in view, with the cursor after it.
            while DisplayWidth.of(shown) > box.width - 1 { shown.removeFirst() }
            let style = field.focused ? theme.selectedRow : theme.card.overlaid(by: CellStyle(underline: true))
            frame.fill(box, with: Cell(" ", style: style))
            let end = frame.put(shown, x: box.x, y: y, style: style, limit: box.maxX)
            if field.focused, end < box.maxX { frame.put(options.glyphs == .unicode ? "▏" : "_", x: end, y: y, style: style) }
        }
        for (offset, note) in notes.enumerated() {
            frame.put(DisplayWidth.truncated(note.text, to: card.width - 4), x: card.x + 2, y: card.y + 2 + fields.count * 2 + offset,
                      style: theme.card.overlaid(by: note.isProblem ? theme.error : theme.dim), limit: card.maxX - 2)
        }
        frame.put(DisplayWidth.truncated(status, to: card.width - 4), x: card.x + 2, y: card.maxY - 3,
                  style: theme.card.overlaid(by: isProblem ? theme.error : theme.dim), limit: card.maxX - 2)
        let keys = " \(keys) "
        frame.put(keys, x: card.maxX - 2 - DisplayWidth.of(keys), y: card.maxY - 1, style: theme.card, limit: card.maxX - 1)
    }
}

/// `S`: the portal's name, the username and the password (dots), and why the portal said no.
enum SignInCard {
    static func draw(_ form: SignInForm, host: String, kept: Bool, into frame: inout Frame, options: RenderOptions) {
        FormCard.draw(title: "Sign in to \(host)", width: 64, fields: FormCard.fields(of: form.fields, options: options), status: form.isSigningIn ? "Signing in…" : form.problem ?? (kept ? "Kept for next time. OAuth: mapbook auth login." : "For this run only: the demo keeps no sign-in."),
           isProblem: form.problem != nil, keys: FocusKeys.signIn.joined(separator: " · "), into: &frame, options: options)
    }
}

/// `N`: an area of your own — its name, its level of detail (← →), each layer's estimate and what
/// cannot be taken — over the outlined part of the view.
enum NewAreaCard {
    static func draw(_ form: AreaForm, into frame: inout Frame, options: RenderOptions) {
        var notes: [(text: String, isProblem: Bool)] = []
        if let estimate = form.estimate {
            notes += estimate.layers.map { ("\($0.title): \($0.measure), about \(Format.bytes($0.bytes))", false) }
            if !estimate.layers.isEmpty { notes.append(("In all about \(Format.bytes(estimate.bytes)).", false)) }
            notes += estimate.refused.map { ("Not taken: \($0).", false) }
            if let why = estimate.refusal ?? estimate.failure { notes.append((why, true)) }
        } else {
            notes.append(("Asking the services what it would weigh…", false))
        }
        FormCard.draw(title: "New map area", width: 76, fields: FormCard.fields(of: form.fields, options: options), notes: notes, status: form.problem ?? "The outlined part of the view; to change it, Esc, pan and N again.",
           isProblem: form.problem != nil, keys: FocusKeys.newArea.joined(separator: " · "), into: &frame, options: options)
    }
}

/// `a` and `e`: a feature's form, its fields as its layer and web map give them, under them what
/// the form leaves out (Arcade), and the focused field's group, hint and range, or why the edit
/// was not kept.
enum FeatureFormCard {
    static func draw(_ editor: FeatureEditor, into frame: inout Frame, options: RenderOptions) {
        let place = (editor.placement.map { $0.prefix(1).uppercased() + $0.dropFirst() + ". " } ?? "") + "* must be given."
        let fields = FormCard.fields(of: editor.fields, options: options)
        let labelWidth = min(max(fields.map { DisplayWidth.of($0.label) }.max() ?? 10, 10), 24)
        let notes = editor.chosenLayer.form.notes.prefix(2).map { ($0, false) } + editor.attached.prefix(3).map { ("Attached: " + $0, false) }
        FormCard.draw(title: editor.title, width: 80, fields: fields, notes: notes,
                      status: editor.isSaving ? "Saving…" : editor.fields.problem ?? editor.focusedHelp ?? place,
                      isProblem: editor.fields.problem != nil, keys: FocusKeys.featureForm.joined(separator: " · "), labelWidth: labelWidth + 1,
                      into: &frame, options: options)
    }
}

/// `p` and `e`: the pin's three fields, and why it was not kept if it was not.
enum PinFormCard {
    static func draw(_ form: PinForm, into frame: inout Frame, options: RenderOptions) {
        let place = form.point.degrees(places: 5)
        FormCard.draw(title: form.editing == nil ? "New pin" : "Edit pin", width: 72, fields: FormCard.fields(of: form.fields, options: options),
                      status: form.isSaving ? "Keeping…" : form.problem ?? "At \(place). Links: http or https only.",
                      isProblem: form.problem != nil, keys: FocusKeys.pinForm.joined(separator: " · "), into: &frame, options: options)
    }
}

/// `P`: the pins as a table over the map: title, note, place (the geocoder's, else coordinates)
/// and when each was made, the selected one reversed.
enum PinsTable {
    static func draw(_ map: MapViewState, state: AppState, in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let pins = state.pins.all
        let width = max(min(rect.width - 4, 110), 20)
        // The heading, the pins, the chosen one's link, inside the border.
        let height = min(pins.count + 4, max(rect.height - 2, 5))
        let card = Rect(x: rect.x + (rect.width - width) / 2, y: rect.y + 1, width: width, height: height)
        DocumentScreen.drawCard(card, title: "Pins · \(pins.count)", into: &frame, options: options)
        let inner = card.width - 4
        // Title, note and place share what the date leaves.
        let dateWidth = 20, share = max((inner - dateWidth - 6) / 3, 4)
        let widths = [share, share, inner - dateWidth - 6 - 2 * share, dateWidth]
        func row(_ cells: [String]) -> String {
            zip(cells, widths).map { cell, width in
                let cut = DisplayWidth.truncated(cell, to: width)
                return cut + String(repeating: " ", count: max(width - DisplayWidth.of(cut), 0))
            }.joined(separator: "  ")
        }
        frame.put(row(["Title", "Note", "Place", "Created"]), x: card.x + 2, y: card.y + 1, style: theme.card.overlaid(by: theme.heading), limit: card.maxX - 2)
        // Below the heading, above the bottom border.
        let rows = Rect(x: card.x + 1, y: card.y + 2, width: card.width - 2, height: height - 4)
        let band = theme.card.overlaid(by: CellStyle(reverse: true))
        ScrollingList(count: pins.count, selection: map.panelSelection).draw(in: rows, into: &frame, band: band, ascii: options.glyphs == .ascii) { index, line, isSelected, frame in
            let pin = pins[index]
            let place = state.pins.places[pin.id] ?? GeoPoint(longitude: pin.longitude, latitude: pin.latitude).degrees()
            let text = row([pin.title, pin.note ?? "", place, Format.date(pin.created, time: true)])
            frame.put(text, x: card.x + 2, y: line.y, style: isSelected ? band : theme.card, limit: card.maxX - 2)
        }
        if let link = pins.indices.contains(map.panelSelection) ? pins[map.panelSelection].link : nil {
            frame.put(DisplayWidth.truncated("Link: " + link, to: card.width - 4), x: card.x + 2, y: card.maxY - 2,
                      style: theme.card.overlaid(by: theme.dim), limit: card.maxX - 2)
        }
        let keys = FocusKeys.fitted(FocusKeys.of(state) ?? [], width: card.width - 4)
        frame.put(keys, x: card.maxX - 2 - DisplayWidth.of(keys), y: card.maxY - 1, style: theme.card, limit: card.maxX - 1)
    }
}

/// `t`: the directions panel at the map's right, full height — the stops, the totals and the
/// arrival (or why there is no route), then the steps: the whole route first, then each maneuver
/// numbered with its glyph, text, and distance · time; the chosen one's whole text at the foot.
enum DirectionsPanel {
    static func draw(_ directions: Directions, in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        guard let shown = directions.current else { return }
        let theme = options.theme, unicode = options.glyphs == .unicode
        let width = ScreenLayout.directionsPanelWidth(mapWidth: rect.width)
        let card = Rect(x: rect.maxX - width - 1, y: rect.y, width: width, height: rect.height)
        guard card.height >= 5 else { return }
        let inner = card.width - 4
        let count = directions.results.count
        DocumentScreen.drawCard(card, title: "Directions" + (count > 1 ? " · \(directions.shown + 1) of \(count)" : ""), into: &frame,
                                options: options)
        var head: [(String, CellStyle)] = DisplayWidth.wrapped(shown.title, width: inner).prefix(2).map { ($0, theme.card.overlaid(by: theme.title)) }
        let bold = theme.card.overlaid(by: CellStyle(bold: true)), dim = theme.card.overlaid(by: theme.dim)
        switch shown.outcome {
        case .asking:
            head.append((unicode ? "Asking the route service…" : "Asking the route service...", dim))
        case .failed(let sentence):
            head += DisplayWidth.wrapped(sentence, width: inner).prefix(max(card.height - 5, 1)).map { ($0, bold) }
        case .found(let route):
            head.append((route.totals, bold))
            head.append(("Arrive " + Format.clock(route.arrival, in: options.timeZone) + (route.modeName.map { " · " + $0 } ?? ""), dim))
        }
        var y = card.y + 1
        for line in head where y < card.maxY - 1 {
            frame.put(DisplayWidth.truncated(line.0, to: inner), x: card.x + 2, y: y, style: line.1, limit: card.maxX - 2)
            y += 1
        }
        let retry = if case .failed = shown.outcome { " r again ·" } else { "" }
        let mode = shown.route == nil ? "" : " Tab mode ·"
        let keys = retry + mode + (count > 1 ? " [ ] · Esc close " : " Esc close ")
        frame.put(keys, x: card.maxX - 2 - DisplayWidth.of(keys), y: card.maxY - 1, style: theme.card, limit: card.maxX - 1)
        guard let route = shown.route, y + 2 < card.maxY - 1 else { return }
        // Row 0 is the whole route; row n the nth maneuver: its number (and glyph), text and measure.
        let numberWidth = String(route.maneuvers.count).count
        let rows = [(lead: "", text: "Whole route", measure: route.totals)] + route.maneuvers.enumerated().map { index, step in
            let number = String(index + 1)
            let lead = String(repeating: " ", count: numberWidth - number.count) + number + " " + (unicode ? step.kind.glyph + " " : "")
            return (lead: lead, text: step.text, measure: route.measure(of: step) ?? "")
        }
        let row = (shown.step ?? -1) + 1
        func textWidth(_ row: (lead: String, text: String, measure: String)) -> Int {
            max(inner - DisplayWidth.of(row.lead) - (row.measure.isEmpty ? 0 : DisplayWidth.of(row.measure) + 2), 1)
        }
        // The chosen step's whole text at the foot when its row cuts it, room allowing.
        var foot: [String] = []
        if DisplayWidth.of(rows[row].text) > textWidth(rows[row]) {
            foot = Array(DisplayWidth.wrapped(rows[row].text, width: inner).prefix(3))
        }
        if card.maxY - 1 - (y + 1) < foot.count + 5 { foot = [] }
        let list = Rect(x: card.x + 1, y: y + 1, width: card.width - 2, height: card.maxY - 1 - (y + 1) - (foot.isEmpty ? 0 : foot.count + 1))
        let band = theme.card.overlaid(by: CellStyle(reverse: true))
        ScrollingList(count: rows.count, selection: row).draw(in: list, into: &frame, band: band, ascii: options.glyphs == .ascii) { index, line, isSelected, frame in
            let style = isSelected ? band : theme.card
            let entry = rows[index]
            frame.put(entry.lead + DisplayWidth.truncated(entry.text, to: textWidth(entry)), x: line.x + 1, y: line.y,
                      style: index == 0 ? style.overlaid(by: CellStyle(bold: true)) : style, limit: card.maxX - 2)
            if !entry.measure.isEmpty {
                frame.put(entry.measure, x: card.maxX - 2 - DisplayWidth.of(entry.measure), y: line.y, style: isSelected ? band : dim,
                          limit: card.maxX - 2)
            }
        }
        for (offset, line) in foot.enumerated() {
            frame.put(line, x: card.x + 2, y: list.maxY + 1 + offset, style: bold, limit: card.maxX - 2)
        }
    }
}

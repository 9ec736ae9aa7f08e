import MapRender
import MapbookCore
import LibraryModel
import TerminalCanvas
import ArcGISModel

/// What a piece of text is, so that each front end can show it its own way: the terminal UI gives
/// every role a style of its theme; the plain front end prints the text alone.
public enum TextRole: Equatable, Sendable {
    case plain, title, dim, heading, label, good, warning, error, match
}

/// A run of text with its role; a document line is a list of them.
public struct StyledText: Equatable, Sendable {
    public var text: String
    public var role: TextRole
    public init(_ text: String, _ role: TextRole = .plain) { self.text = text; self.role = role }
}

extension Array where Element == StyledText {
    /// The line's text without its roles.
    public var plainText: String { map(\.text).joined() }

    /// The line cut to `width` columns, ending in "…" where it was cut (the roles kept up to there).
    public func fitted(to width: Int) -> [StyledText] {
        guard DisplayWidth.of(plainText) > width else { return self }
        var room = Swift.max(width - 1, 0), out: [StyledText] = []
        for part in self {
            let cut = DisplayWidth.of(part.text) <= room ? part.text : DisplayWidth.truncated(part.text, to: room + 1).dropLast().description
            out.append(StyledText(cut, part.role))
            room -= DisplayWidth.of(cut)
            if cut != part.text || room <= 0 { break }
        }
        if var last = out.popLast() { last.text += "…"; out.append(last) }
        return out
    }
}

/// Builds a scrollable document: lines of styled text, wrapped to a width.
struct DocumentBuilder {
    private(set) var lines: [[StyledText]] = []
    let width: Int
    /// Field labels take this many columns, values the rest.
    static let labelWidth = 16
    /// Narrower than this, a value goes under its label instead of beside it.
    static let minimumValueWidth = 32

    init(width: Int) { self.width = max(width, 1) }

    mutating func paragraph(_ text: String, role: TextRole = .plain, indent: Int = 0) {
        for line in DisplayWidth.wrapped(text, width: max(width - indent, 1)) {
            lines.append([StyledText(String(repeating: " ", count: indent)), StyledText(line, role)])
        }
    }

    mutating func blank() { lines.append([]) }

    mutating func heading(_ text: String) {
        if !(lines.last?.isEmpty ?? true) { blank() }
        lines.append([StyledText(DisplayWidth.truncated(text, to: width), .heading)])
    }

    /// `Label           value`, the value wrapped under itself; on narrow screens the label on a
    /// line of its own and the value indented below it.
    mutating func field(_ label: String, _ value: String, role: TextRole = .plain) {
        if width - Self.labelWidth - 2 < Self.minimumValueWidth {
            if !label.isEmpty { lines.append([StyledText(DisplayWidth.truncated(label, to: width), .label)]) }
            paragraph(value, role: role, indent: 2)
            return
        }
        let wrapped = DisplayWidth.wrapped(value, width: max(width - Self.labelWidth - 2, 1))
        for (offset, line) in (wrapped.isEmpty ? [""] : wrapped).enumerated() {
            let shownLabel = offset == 0 ? DisplayWidth.truncated(label, to: Self.labelWidth) : ""
            let pad = String(repeating: " ", count: max(Self.labelWidth - DisplayWidth.of(shownLabel), 0) + 2)
            lines.append([StyledText(shownLabel, .label), StyledText(pad), StyledText(line, role)])
        }
    }
}

/// What the details screen says about the selected row: everything the portal told us, and what is
/// on this device.
public enum DetailsDocument {
    public static func lines(_ state: AppState, width: Int) -> [[StyledText]] {
        var doc = DocumentBuilder(width: width)
        guard let row = state.selectedRow, let item = state.item(of: row) else {
            doc.paragraph("Nothing is selected.", role: .dim)
            return doc.lines
        }
        doc.paragraph(state.title(of: row), role: .title)
        if let snippet = item.snippet, !snippet.isEmpty { doc.paragraph(snippet, role: .dim) }
        if let description = item.description, !description.isEmpty {
            doc.heading("Description")
            doc.paragraph(description)
        }

        doc.heading("Item")
        doc.field("ID", item.id.rawValue)
        doc.field("Type", item.type.isEmpty ? "—" : item.type)
        doc.field("Owner", item.owner ?? "—")
        doc.field("Created", item.created.map { Format.date($0) } ?? "—")
        doc.field("Modified", item.modified.map { Format.date($0) } ?? "—")
        doc.field("Extent", item.extent?.summary ?? "—")

        switch row {
        case .webMap:
            let total = state.catalog.areas.reduce(Int64(0)) { $0 + $1.size }
            doc.field("Map areas", state.catalog.areas.isEmpty ? "none" : "\(state.catalog.areas.count) · \(Format.bytes(total)) to download in all")
        case .area(let index):
            let area = state.catalog.areas[index]
            doc.field("Status", StatusText.line(row, state: state, wording: .details).plainText)
            doc.heading("Packages")
            if area.packages.isEmpty { doc.paragraph("The portal lists no packages for this area.", role: .dim) }
            for package in area.packages {
                let size = package.size.map(Format.bytes) ?? "size unknown"
                let name = package.item.title.isEmpty ? package.item.id.rawValue : package.item.title
                doc.field("Package", [name, package.item.type, size].filter { !$0.isEmpty }.joined(separator: " · "))
            }
            doc.field("Download size", Format.bytes(area.size))
            if let made = area.onDemand {
                doc.field("Yours", "Made on this device \(Format.timestamp(made.createdAt)) at \(made.detailLabel), over \(made.extent.summary); "
                          + "`mapbook area new` makes another.")
            }
            doc.heading("On this device")
            onThisDevice(index, state: state, into: &doc)
        }

        doc.heading("Map")
        if let map = state.catalog.webMap {
            doc.field("Basemap", map.basemapTitle ?? "—")
            for layer in map.basemapLayers { doc.field("", layerLine(layer)) }
            doc.field("Layers", map.operationalLayers.isEmpty ? "none" : layerLine(map.operationalLayers[0]))
            for layer in map.operationalLayers.dropFirst() { doc.field("", layerLine(layer)) }
            doc.field("Bookmarks", map.bookmarks.first?.name ?? "none")
            for bookmark in map.bookmarks.dropFirst() { doc.field("", bookmark.name) }
            if let wkid = map.spatialReference?.code { doc.field("Spatial ref.", "WKID \(wkid)") }
        } else {
            doc.paragraph("The web map's definition has not been loaded.", role: .dim)
        }
        return doc.lines
    }

    private static func onThisDevice(_ index: Int, state: AppState, into doc: inout DocumentBuilder) {
        let id = state.catalog.areas[index].item.id
        switch state.status(ofArea: index) {
        case .downloading(let progress, _):
            doc.field("Downloading", ProgressText.bar(fraction: progress.fraction, width: 22, ascii: false) + " "
                      + progress.figures)
        case .queued: doc.field("Download", "Queued")
        case .waitingForNetwork: doc.field("Download", "Waiting for the network; it resumes where it stopped.")
        case .paused(let bytes, let total, let resumes):
            let reached = total > 0 ? "\(Format.bytes(bytes)) of \(Format.bytes(total))" : Format.bytes(bytes)
            doc.field(resumes ? "Paused" : "Interrupted",
                      "\(reached) arrived before mapbook stopped; " + (resumes ? "it resumes when online" : "\(state.key(.area(.download))) resumes it") + ", \(state.key(.area(.cancel))) discards it.")
        case .failed(let sentence): doc.field("Download failed", sentence + " Press \(state.key(.refresh)) to retry.", role: .error)
        default: break
        }
        guard let record = state.library.downloads[id] else {
            doc.field("Size on disk", "Not downloaded")
            return
        }
        doc.field("Size on disk", Format.bytes(record.size))
        doc.field("Downloaded", Format.timestamp(record.downloadedAt))
        if let edits = state.library.editsWaiting(in: id) {
            doc.field("Edits", edits + ": saved on this device; \(state.key(.area(.syncEdits))) syncs them, `mapbook edits list` shows them.", role: .warning)
        }
        if let sync = state.library.lastSync[id] {
            doc.field("Last sync", Format.date(sync.at, time: true) + ": " + sync.sentence, role: sync.refused > 0 ? .error : sync.waiting > 0 ? .warning : .plain)
            if sync.conflicts > 0 {
                doc.field("Conflicts", "\(sync.conflicts) change\(sync.conflicts == 1 ? "" : "s") the server made too: \(state.key(.area(.keepMine))) sends yours, "
                          + "\(state.key(.area(.takeTheirs))) takes the server's (each asks first); `mapbook edits sync --prefer mine|theirs` alike.", role: .error)
            }
            for line in sync.lines { doc.field("", line, role: line.hasPrefix("REFUSED") || line.hasPrefix("CONFLICT") ? .error : .plain) }
            if let changes = sync.serverChanges { doc.field("", changes) }
        }
        doc.field("Verified", record.packages.map(\.verifiedBy).joined(separator: ", "))
        if record.source != .portal { doc.field("From", TerminalText.sanitizedLine(record.source.label, maxLength: 200)) }
        for package in record.packages {
            guard let problem = package.mirrorProblem else { continue }
            doc.field("Mirror", TerminalText.sanitizedLine("\(package.title): \(problem); it came from the portal.", maxLength: 300), role: .error)
        }
        if let held = record.heldFeatures { doc.field("Features", held) }
        if let problem = record.drawProblem {
            doc.field("Map", "Cannot be drawn: " + TerminalText.sanitizedLine(problem, maxLength: 300), role: .error)
        } else if record.damagedTiles.count > 0 {
            let (count, levels) = record.damagedTiles
            doc.field("Tiles", "\(count) damaged, at level\(levels.count == 1 ? "" : "s") "
                      + levels.map(String.init).joined(separator: ", ") + "; the map draws around them")
        }
        let update = record.needsUpdate(comparedWith: state.catalog.areas[index])
        doc.field("Update", update ? "Available: the portal has newer packages (u to update)"
                  : state.portal.network.isCutOff ? "Up to date as of the last sync" : "Up to date")
    }

    private static func layerLine(_ layer: WebMapLayer) -> String {
        let title = layer.title ?? layer.id ?? "Untitled layer"
        return "\(title) (\(layer.layerType))" + (layer.visible ? "" : " · hidden")
    }
}

/// Help: the key map table, grouped by where each binding applies.
public enum HelpDocument {
    public static func lines(width: Int, bindings all: [KeyBinding] = KeyMap.bindings) -> [[StyledText]] {
        var doc = DocumentBuilder(width: width)
        for context in KeyContext.allCases {
            let bindings = all.filter { $0.context == context }
            guard !bindings.isEmpty else { continue }
            doc.heading(context.rawValue)
            for binding in bindings { doc.field(binding.label, binding.summary) }
        }
        return doc.lines
    }
}

/// What one list row says about its area's state, in words and roles: `Ready · 42.1 MiB`,
/// `Downloading ▕████▍    ▏ 47% …`, `Downloaded · 42.1 MiB`, `Failed — r to retry`, `Update available`,
/// `Packaging`, or the web map's summary.
public enum StatusText {
    /// How a line names what can be done next: the full screen's keys ("c to cancel"), or the plain
    /// mode's commands for the row numbered `number` ("cancel 3 to cancel"), or the keys inside the
    /// details document, which says why itself.
    public enum Wording: Sendable { case keys, commands(number: Int), details }

    /// `width`: the cells the line may take (the progress figures shrink to fit, the rest is cut with
    /// "…"); nil for no limit.
    public static func line(_ row: ListRow, state: AppState, ascii: Bool = false, width: Int? = nil, wording: Wording = .keys) -> [StyledText] {
        let parts = parts(row, state: state, ascii: ascii, width: width, wording: wording)
        return width.map { parts.fitted(to: $0) } ?? parts
    }

    private static func parts(_ row: ListRow, state: AppState, ascii: Bool, width: Int?, wording: Wording) -> [StyledText] {
        /// What does something, worded for the front end: its key, or the plain command.
        func named(_ key: String, command: String) -> String {
            switch wording {
            case .keys, .details: key
            case .commands(let number): "\(command) \(number)"
            }
        }
        switch row {
        case .webMap:
            let count = state.catalog.areas.count == 1 ? "1 map area" : "\(state.catalog.areas.count) map areas"
            let type = state.catalog.webMapItem?.type.isEmpty == false ? state.catalog.webMapItem!.type : "Web Map"
            let here = state.library.downloads.count
            // What was edited online and has not reached its services yet.
            let online = state.catalog.webMapItem.flatMap { state.library.editsWaiting(in: $0.id) }.map { [StyledText(" · " + $0, .warning)] } ?? []
            return [StyledText("\(type) · \(count)", .dim), StyledText(here > 0 ? " · \(here) on this device" : "", .good)] + online
        case .area(let index):
            guard state.catalog.areas.indices.contains(index) else { return [] }
            let area = state.catalog.areas[index]
            switch state.status(ofArea: index) {
            case .ready(let size):
                return [StyledText("Ready", .good), StyledText(area.packages.isEmpty ? " · no packages" : " · \(Format.bytes(size))", .dim)]
            case .preparing(let label):
                return [StyledText(label, .warning), StyledText(" · yours", .dim)]
            case .queued:
                return [StyledText("Queued", .warning), StyledText(" · \(named(state.key(.area(.cancel)), command: "cancel")) to cancel", .dim)]
            case .downloading(let progress, let isUpdate):
                let label = isUpdate ? "Updating " : "Downloading ", bar = ProgressText.bar(fraction: progress.fraction, width: 10, ascii: ascii)
                // The figures take what is left after the label, the bar and a space.
                let figures = width.map { progress.figures(fitting: $0 - DisplayWidth.of(label) - DisplayWidth.of(bar) - 1) } ?? progress.figures
                return [StyledText(label, .warning), StyledText(bar, .good), StyledText(" " + figures, .dim)]
            case .waitingForNetwork:
                return [StyledText("Waiting for the network", .warning), StyledText(" · resumes when online", .dim)]
            case .paused(let bytes, let total, let resumes):
                let fraction = total > 0 ? min(Double(bytes) / Double(total), 1) : nil
                let percent = fraction.map { " " + Format.percent($0) } ?? " \(Format.bytes(bytes))"
                return [StyledText(resumes ? "Paused " : "Interrupted ", .warning),
                        StyledText(ProgressText.bar(fraction: fraction, width: 10, ascii: ascii), .dim),
                        StyledText(percent + (resumes ? " · resumes when online" : " · \(named(state.key(.area(.download)), command: "download")) resumes"), .dim)]
            case .failed:
                let why: String = if case .details = wording { "" } else { " · \(named("Enter", command: "details")) for why" }
                return [StyledText("Failed", .error), StyledText(" — \(named(state.key(.refresh), command: "download")) to retry\(why)", .dim)]
            case .downloaded(let size, _, let updateAvailable):
                if updateAvailable { return [StyledText("Update available", .warning), StyledText(" · \(named(state.key(.area(.update)), command: "update")) to update", .dim)] }
                if let problem = state.library.downloads[area.item.id]?.drawProblem {
                    return [StyledText("Downloaded — cannot be drawn: ", .error), StyledText(TerminalText.sanitizedLine(problem, maxLength: 200), .dim)]
                }
                // Damage upstream is told calmly: the map draws around it.
                let damaged = state.library.downloads[area.item.id]?.damagedTiles.count ?? 0
                return [StyledText("Downloaded", .good),
                        StyledText((area.onDemand != nil ? " · yours" : "") + (damaged > 0 ? " · \(damaged) tile\(damaged == 1 ? "" : "s") damaged" : ""), .dim)]
                    + (state.library.editsWaiting(in: area.item.id).map { [StyledText(" · " + $0, .warning)] } ?? [])
                    + [StyledText(" · \(Format.bytes(size))", .dim)]
            case .packaging:
                return [StyledText("Packaging", .warning), StyledText(" · still being packaged on the portal", .dim)]
            case .packagingFailed:
                // Reloading cannot fix it: only the area's owner, packaging it again on the portal.
                return [StyledText("Packaging failed", .error), StyledText(" — its owner must package it again", .dim)]
            case .unavailable(let value):
                return [StyledText("Unavailable", .warning), StyledText(" · status “\(value)”", .dim)]
            case .unreadable(let reason):
                return [StyledText("Unavailable", .warning), StyledText(" · \(reason)", .dim)]
            case .checking:
                return [StyledText("Checking its packages…", .dim)]
            }
        }
    }
}

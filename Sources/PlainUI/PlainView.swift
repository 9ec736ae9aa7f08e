import AppModel
import Foundation
import MapbookCore
import Geometry
import Location

/// The plain mode's view of the state: sentences, no art and no cursor movement. A pure function
/// of the state, like the full screen's renderer; `PlainApp` prints what changed.
public enum PlainView {
    /// One thing the plain mode tells about, under a key: when the line under a key changes, it is
    /// printed again.
    public struct Fact: Equatable, Sendable {
        public var key: String
        public var line: String
    }

    /// Everything worth a sentence now, in a fixed order.
    public static func facts(_ state: AppState) -> [Fact] {
        var facts: [Fact] = []
        func add(_ key: String, _ line: String?) { if let line, !line.isEmpty { facts.append(Fact(key: key, line: line)) } }
        add("phase", phase(state))
        switch state.portal.network {
        case .online: add("network", "Online.")
        case .offline, .portalNotAnswering:
            let what = state.portal.network == .offline ? "Offline" : "The portal is not answering"
            add("network", what + (state.portal.lastSynced.map { ", last synced \(Format.timestamp($0))" } ?? "") + ".")
        case .unknown: break
        }
        add("notice", state.notice?.sentence)
        for (id, transfer) in state.library.transfers.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            add("transfer \(id)", transferLine(transfer, title: state.title(of: id)))
        }
        if case .confirm(let confirmation)? = state.overlay {
            add("confirm", "\(confirmation.question) \(confirmation.detail) Type yes or no.")
        }
        if let here = state.places.here {
            add("location", "Location: \(locationState(here)).")
            // Said again only every `positionEvery` seconds (PlainApp): it changes with each report.
            if here.isCurrent, let point = here.position {
                add("position", "Your position: \(point.degrees())" + (here.accuracy.map { ", within \($0.clampedInt(in: 0...1_000_000)) m" } ?? "") + ".")
            }
        }
        if let recording = state.places.recording { add("track", "Recording a track: \(recording.recorder.count) points.") }
        if let map = state.map { add("map", mapLine(map)) }
        if case .featureForm(let editor)? = state.overlay {
            add("form", formLine(editor))
            add("form problem", editor.fields.problem.map { "Not saved: \($0)" })
        }
        if let shown = state.directions.current {
            // Keyed by request: each new result is printed whole, even where its steps read the same.
            let lines = shown.lines()
            for (index, line) in lines.enumerated() { add("directions \(shown.request) \(index)", line) }
        }
        if case .maps(let maps)? = state.overlay {
            // The card's tab and how it stands, then its rows numbered for `webmap N`.
            add("maps", "Web maps, \(maps.tab.title): \(maps.status(unicode: true))")
            for (index, listing) in maps.rows.enumerated() {
                add("maps \(index)", "  \(index + 1). \(listing.title.isEmpty ? "Untitled" : listing.title)"
                    + (listing.facts.isEmpty ? "" : " — " + listing.facts.joined(separator: " · ")))
            }
        }
        return facts
    }

    /// The list, numbered from 1 as the commands take it: the web map, then its areas.
    public static func list(_ state: AppState) -> [String] {
        guard !state.rows.isEmpty else {
            return [state.catalog.webMapItem == nil ? "Nothing is loaded yet." : "Nothing matches the filter."]
        }
        return state.rows.enumerated().map { index, row in "\(index + 1). \(state.title(of: row)) — \(status(row, number: index + 1, state: state))" }
    }

    /// Everything the details screen says about row `number` (from 1), as lines of text.
    public static func details(_ state: AppState, width: Int = 100) -> [String] {
        DetailsDocument.lines(state, width: width).map { line in
            var text = line.plainText
            while text.last == " " { text.removeLast() }
            return text
        }
    }

    private static func phase(_ state: AppState) -> String? {
        switch state.catalog.phase {
        case .starting(let what): return what
        case .loading: return "Loading the web map from \(state.portal.host)…"
        case .loaded:
            guard state.map?.isStandalone != true else { return nil }
            let title = state.catalog.webMapItem.map { $0.title.isEmpty ? "Untitled web map" : $0.title } ?? "The web map"
            let count = state.catalog.areas.count == 1 ? "1 map area" : "\(state.catalog.areas.count) map areas"
            return "\(title): \(count). Type list to see them, help for the commands."
        case .unreachable(let host): return "No internet connection: cannot reach \(host). Type reload to try again."
        case .notAnswering(let host, let sentence):
            return "\(host) is not answering: \(sentence) mapbook tries again by itself; type reload to try now."
        case .failed(let sentence): return "The portal answered with an error: \(sentence) Type reload to try again."
        }
    }

    /// A row's state in words: the full screen's status line, with figures instead of a bar and
    /// the plain mode's commands for the row instead of keys ("cancel 3 to cancel").
    private static func status(_ row: ListRow, number: Int, state: AppState) -> String {
        if case .area(let index) = row, case .downloading(let progress, _) = state.status(ofArea: index) {
            return "Downloading " + progress.figures
        }
        return StatusText.line(row, state: state, ascii: true, wording: .commands(number: number)).plainText
    }

    /// Progress in steps of 10 %, so a log gets ten lines for a download, not a thousand.
    private static func transferLine(_ transfer: Transfer, title: String) -> String {
        switch transfer {
        case .queued: return "\(title): queued."
        case .running(let progress):
            guard let fraction = progress.fraction, let total = progress.total else {
                return "\(title): downloading, \(Format.bytes(progress.bytes / (1 << 20) * (1 << 20))) so far."
            }
            return "\(title): downloading, \(Int(fraction * 10) * 10)% of \(Format.bytes(total))."
        case .waitingForNetwork: return "\(title): waiting for the network; it resumes where it stopped."
        case .failed: return "\(title): the download failed; type download again to retry."
        }
    }

    /// A feature's form as one sentence: what it is, each field and its value, what to type.
    private static func formLine(_ editor: FeatureEditor) -> String {
        let what = editor.title + (editor.placement.map { " " + $0 } ?? "")
        let fields = editor.fields.fields.map { field in
            let shown = TerminalText.sanitizedLine(field.shown, maxLength: 200)
            return "\(field.label): \(shown.isEmpty ? "empty" : "“\(shown)”")"
        }
        let notes = (editor.chosenLayer.form.notes + editor.attached.map { "Attached: \($0)." }).map { " " + $0 }.joined()
        return "\(what). \(fields.joined(separator: "; ")).\(notes) Type set FIELD VALUE, save or cancel (* must be given)."
    }

    /// Facts said at most this often, in seconds, however often their sentence changes.
    public static let throttled: [String: TimeInterval] = ["position": positionEvery, "track": positionEvery]
    public static let positionEvery: TimeInterval = 30

    /// The location's state in a few words, the same while the fix moves: said when it changes.
    private static func locationState(_ here: LocationStatus) -> String {
        switch here {
        case .fix(let fix, _): fix.dimension == .threeD ? "3D fix" : "2D fix"
        case .searching: "looking for a receiver"
        case .noFix: "no fix"
        case .stale: "no report from the receiver lately; the last fix is shown"
        case .unavailable(let why): why
        case .fixed: "the position set in the config"
        }
    }

    private static func mapLine(_ map: MapViewState) -> String {
        if let status = map.status { return "Map of \(map.title): \(status)" }
        guard map.image != nil else { return "" }
        let point = WebMercator.geographic(x: map.viewport.center.x, y: map.viewport.center.y)
        let centre = String(format: "%.4f°%@ %.4f°%@", abs(point.latitude), point.latitude >= 0 ? "N" : "S",
                            abs(point.longitude), point.longitude >= 0 ? "E" : "W")
        let layers = map.layers.isEmpty ? "" : "; layers: " + map.layers.joined(separator: ", ")
        return "Map of \(map.title) (\(map.sourceName)): centre \(centre), zoom \(String(format: "%.1f", map.viewport.zoom)), "
            + "scale \(Format.scale(map.viewport.scale))\(layers). Type back to leave it."
    }
}

/// What the plain mode reads from standard input, one command a line.
public enum PlainCommand: Equatable, Sendable {
    case list
    case details(Int)
    case download(Int)
    case downloadAll
    case cancel(Int)
    case remove(Int)
    case update(Int)
    /// `sync N`: area N's edits sent back; `sync`: every area's; `sync N mine|theirs`: its changes
    /// held in conflict sent with the user's values or the server's (asked first).
    case syncEdits(Int?)
    case settleConflicts(Int, keepMine: Bool)
    case open(Int)
    case back
    case reload
    case answer(Bool)
    /// The web maps of a tab (`maps`, `maps mine`), a search's (`maps search WORDS`), the next page
    /// (`maps more`); `webmap N` opens the one in row N.
    case maps(WebMapsTab)
    case searchMaps(String)
    case moreMaps
    case webMap(Int)
    /// `ruler LON,LAT LON,LAT …`: the distance and bearing along the points, as the map's ruler says it.
    case ruler([GeoPoint])
    /// `directions A to B [to C …]`: each place `LON,LAT` or a name.
    case directions([String])
    /// `where`: this device's position (watching starts if it had not); `track`: a track recorded,
    /// or ended.
    case whereAmI, track
    /// `add point [LAYER] [at LON,LAT]` in an area's map: its form, then `set FIELD VALUE`, `save`
    /// or `cancel`.
    case addPoint(layer: String?, at: GeoPoint?)
    case setField(String, value: String)
    case saveForm, leaveForm
    /// In an area's map (or the web map's, online): its last edit not yet synced undone, or the
    /// edit undone last brought back.
    case undoEdit, redoEdit
    case help
    case quit

    /// nil for a blank line; `.failure` with a sentence for what cannot be understood.
    public static func parse(_ line: String) -> Result<PlainCommand, PlainCommandError>? {
        let words = line.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        guard let verb = words.first else { return nil }
        let number = words.count == 2 ? Int(words[1]) : nil
        func numbered(_ make: (Int) -> PlainCommand) -> Result<PlainCommand, PlainCommandError> {
            guard let number, number > 0 else { return .failure(PlainCommandError("\(verb) needs a row number from the list, as in \(verb) 2.")) }
            return .success(make(number))
        }
        switch verb {
        case "directions", "route":
            // The places as typed, between the word "to".
            var places: [[Substring]] = [[]]
            for word in line.split(whereSeparator: \.isWhitespace).dropFirst() {
                if word.lowercased() == "to" { places.append([]) } else { places[places.count - 1].append(word) }
            }
            guard places.count >= 2, places.allSatisfy({ !$0.isEmpty }) else {
                return .failure(PlainCommandError("directions needs two places or more, as in directions Portland, ME to Bangor (or -70.26,43.66 to -68.77,44.80)."))
            }
            return .success(.directions(places.map { $0.joined(separator: " ") }))
        case "ruler", "measure":
            let points = words.dropFirst().compactMap(GeoPoint.init(parsing:))
            guard points.count >= 2, points.count == words.count - 1 else {
                return .failure(PlainCommandError("ruler needs two or more points, longitude first, as in ruler -68.2,44.39 -68.77,44.8."))
            }
            return .success(.ruler(points))
        case "add":
            // As typed: `add point Sites at -69.2,44.3` (the layer's words kept as written).
            let typed = line.split(whereSeparator: \.isWhitespace).dropFirst().map(String.init)
            guard typed.first?.lowercased() == "point" else {
                return .failure(PlainCommandError("add takes point: add point LAYER at LON,LAT (lines and areas: mapbook feature add --geometry)."))
            }
            var rest = Array(typed.dropFirst())
            var point: GeoPoint?
            if rest.count >= 2, rest[rest.count - 2].lowercased() == "at" {
                guard let parsed = GeoPoint(parsing: rest[rest.count - 1]) else {
                    return .failure(PlainCommandError("add point needs a place as LON,LAT, such as at -69.2,44.3."))
                }
                point = parsed
                rest.removeLast(2)
            }
            return .success(.addPoint(layer: rest.isEmpty ? nil : rest.joined(separator: " "), at: point))
        case "set":
            let typed: Substring = line.drop(while: \.isWhitespace).drop(while: { !$0.isWhitespace }).drop(while: \.isWhitespace)
            guard let name = typed.split(whereSeparator: { $0.isWhitespace }).first else {
                return .failure(PlainCommandError("set needs a field and a value, as in set name Heron cove (set name alone empties it)."))
            }
            return .success(.setField(String(name), value: String(typed.dropFirst(name.count).drop { $0 == " " })))
        case "where": return .success(.whereAmI)
        case "track": return .success(.track)
        case "save": return .success(.saveForm)
        case "undo": return .success(.undoEdit)
        case "redo": return .success(.redoEdit)
        case "cancel" where words.count == 1: return .success(.leaveForm)
        case "list", "ls": return .success(.list)
        case "details", "info": return numbered(PlainCommand.details)
        case "download" where words.count == 2 && words[1] == "all": return .success(.downloadAll)
        case "download", "d": return numbered(PlainCommand.download)
        case "cancel", "c": return numbered(PlainCommand.cancel)
        case "remove", "x": return numbered(PlainCommand.remove)
        case "update", "u": return numbered(PlainCommand.update)
        case "sync" where words.count == 1: return .success(.syncEdits(nil))
        case "sync" where words.count == 3 && ["mine", "theirs"].contains(words[2]):
            guard let row = Int(words[1]), row > 0 else { return .failure(PlainCommandError("sync needs a row number, as in sync 3 mine.")) }
            return .success(.settleConflicts(row, keepMine: words[2] == "mine"))
        case "sync": return numbered { PlainCommand.syncEdits($0) }
        case "open", "map", "m": return numbered(PlainCommand.open)
        case "maps":
            switch words.dropFirst().first {
            case nil, "recent": return .success(.maps(.recent))
            case "mine", "my", "content": return .success(.maps(.mine))
            case "groups", "group": return .success(.maps(.groups))
            case "more": return .success(.moreMaps)
            case "search", "find":
                // The words as typed (not lowercased), after the verb and "search".
                let typed = line.split(whereSeparator: \.isWhitespace).dropFirst(2).joined(separator: " ")
                guard !typed.isEmpty else { return .failure(PlainCommandError("maps search needs words, as in maps search parks.")) }
                return .success(.searchMaps(typed))
            default:
                return .failure(PlainCommandError("maps takes recent, mine, groups, search WORDS or more."))
            }
        case "webmap": return numbered(PlainCommand.webMap)
        case "back": return .success(.back)
        case "reload", "r": return .success(.reload)
        case "yes", "y": return .success(.answer(true))
        case "no", "n": return .success(.answer(false))
        case "help", "?": return .success(.help)
        case "quit", "exit", "q": return .success(.quit)
        default:
            return .failure(PlainCommandError("Unknown command “\(TerminalText.sanitizedLine(verb, maxLength: 40))”. Type help for the commands."))
        }
    }

    public static let commandHelp = [
        "Commands (N is a row number from list):",
        "  list          the web map and its map areas, numbered",
        "  details N     everything about row N",
        "  download N    download area N (download all: every area not on this device)",
        "  cancel N      stop area N's download",
        "  update N      download the portal's newer packages for area N",
        "  remove N      remove area N from this device (asks; answer yes or no)",
        "  sync [N]      send area N's edits saved offline back to their services (sync: every area's)",
        "  sync N mine|theirs  area N's changes held in conflict: sent with your values, or the server's (asks first)",
        "  open N        open row N's map (told in words); back leaves it",
        "  reload        ask the portal again",
        "  maps [recent|mine|groups]   web maps to open: opened here (and with areas here), yours, your groups'",
        "  maps search WORDS           web maps matching the words; maps more: the next page",
        "  webmap N      open web map N of the last maps list",
        "  ruler P P …   distance and bearing along points (P is LON,LAT, such as -68.2,44.39)",
        "  directions A to B [to C …]  a route and its steps from the portal's route service (a place is a name or LON,LAT)",
        "  add point [LAYER] [at LON,LAT]  in a downloaded area's map (open N): a new point's form, at the centre unless given",
        "  set FIELD VALUE  a value of the form (a coded value by its name); set FIELD empties it; set attach PATH a file",
        "  save / cancel    keep the form's edit in the area's journal, or leave it",
        "  undo / redo      the map's last edit not yet synced undone, or brought back",
        "  where         this device's position from gpsd (or the config's); said by itself at most every 30 s after",
        "  track         record a track from the position; track again ends it (mapbook tracks exports it)",
        "  help          this list",
        "  quit          stop; downloads keep their bytes and resume next time",
        "At the end of the input, mapbook waits for the downloads under way, then quits.",
    ]
}

public struct PlainCommandError: Error, Equatable, Sendable {
    public let sentence: String
    init(_ sentence: String) { self.sentence = sentence }
}

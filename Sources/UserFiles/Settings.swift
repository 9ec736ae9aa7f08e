import Foundation
import MapbookCore
import ArcGISModel
import Geometry
import Location

/// What a person can set in `$XDG_CONFIG_HOME/mapbook/config` (else `~/.config/mapbook/config`):
/// `key = value` lines, `#` comments. A file that cannot be read, a key mapbook does not know or
/// a value it cannot use is reported in one sentence each; the rest of the file still applies.
public struct Settings: Equatable, Sendable {
    /// Downloads an earlier run left part way resume by themselves once the portal answers.
    public var resumeDownloads = true
    /// The OAuth client id `mapbook auth login` signs in with (an app registered on the portal).
    public var clientID: String?
    /// The portal used when `--portal` is not given.
    public var portal: String?
    /// The web map opened when `--webmap` is not given (and none was opened before on the portal).
    public var webMap: String?
    /// The fleet mirror packages come from when it holds them (`--mirror`; docs/fleet.md).
    public var mirror: String?

    /// The browser's colours.
    public var theme: ColorTheme = .auto
    /// How maps (and the screen) are drawn.
    public var graphics: GraphicsMode = .auto
    /// Keys set to other actions (`key.download = D`): each replaces the action's own key.
    public var keys: [KeyAction: Character] = [:]
    /// How distances are said (the ruler, "what's here"); by default what the locale measures in.
    public var units: DistanceUnits = .forLocale()
    /// Whether the browser syncs edits by itself once the portal answers (`sync = auto|manual`).
    public var syncsEditsByItself = true
    /// Where gpsd listens (`gpsd = 127.0.0.1:2947`); the environment's GPSD_HOST comes first.
    public var gpsd: GPSDAddress?
    /// A position for a machine without a receiver (`location = LON,LAT`).
    public var location: GeoPoint?

    /// Every key, in the order `mapbook config list` shows them.
    public static let keys = ["portal", "webmap", "mirror", "client-id", "resume-downloads", "sync", "theme", "graphics", "units", "gpsd", "location"]

    /// A key the file can hold: one of `keys`, or `key.` and an action.
    public static func isKnown(_ key: String) -> Bool {
        keys.contains(key) || (key.hasPrefix("key.") && KeyAction(rawValue: String(key.dropFirst(4))) != nil)
    }

    /// The keys set, in the order `mapbook config list` shows them: every setting, then the keys
    /// given to actions.
    public var listedKeys: [String] {
        Self.keys + KeyAction.allCases.filter { keys[$0] != nil }.map { "key." + $0.rawValue }
    }

    /// A setting's value as the file would write it; nil when unset.
    public func value(_ key: String) -> String? {
        switch key {
        case "portal": portal
        case "webmap": webMap
        case "mirror": mirror
        case "client-id": clientID
        case "resume-downloads": resumeDownloads ? "true" : "false"
        case "sync": syncsEditsByItself ? "auto" : "manual"
        case "theme": theme.rawValue
        case "graphics": graphics.rawValue
        case "units": units.rawValue
        case "gpsd": gpsd?.description
        case "location": location.map { "\($0.longitude),\($0.latitude)" }
        default: key.hasPrefix("key.") ? KeyAction(rawValue: String(key.dropFirst(4))).flatMap { keys[$0] }.map(String.init) : nil
        }
    }

    /// What applies when `key` is not set, for the keys whose default is not a value of `Settings`.
    public static func defaultValue(_ key: String) -> String? {
        switch key {
        case "portal": "https://www.arcgis.com"
        case "webmap": "\(ItemID.exploreMaine.rawValue) (Explore Maine)"
        default: nil
        }
    }

    /// `text` with `key` set to `value` (its line replaced, else one added), or removed for nil;
    /// throws when the key is unknown or the value unusable, leaving the text as it was.
    public static func text(_ text: String, setting key: String, to value: String?) throws(Problems) -> String {
        guard isKnown(key) else {
            throw Problems(settings: Settings(), sentences: ["mapbook has no setting “\(TerminalText.sanitizedLine(key, maxLength: 40))”; it has "
                                                             + "\(keys.joined(separator: ", ")) and key.ACTION (\(KeyAction.allCases.map(\.rawValue).joined(separator: ", ")))."])
        }
        if let value, let problem = unsafeValueProblem(key: key, value) {
            throw Problems(settings: Settings(), sentences: [problem])
        }
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let matching = lines.indices.filter { lines[$0].split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) == key }
        for index in matching.reversed() { lines.remove(at: index) }
        if let value { lines.insert("\(key) = \(value)", at: min(matching.first ?? lines.count, lines.count)) }
        let updated = lines.joined(separator: "\n") + "\n"
        do {
            _ = try Settings(parsing: updated)
        } catch {
            // Only what this change brought in counts against it, said of the value, not of a line.
            let own = error.sentences.filter { $0.contains(key) }
                .map { $0.replacingOccurrences(of: #"^config line [0-9]+: "#, with: "", options: .regularExpression) }
            if !own.isEmpty { throw Problems(settings: error.settings, sentences: own) }
        }
        return updated
    }

    /// An http or https address with a host.
    public static func isWebAddress(_ text: String) -> Bool {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return false }
        return url.host?.isEmpty == false
    }

    /// Why `value` cannot be written as `key`'s value, if it cannot: a line break or other control
    /// character would start a line of its own (another setting), and a `#` starts a comment.
    static func unsafeValueProblem(key: String, _ value: String) -> String? {
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            return "A value for \(key) cannot hold a line break or other control character."
        }
        if value.contains("#") { return "A value for \(key) cannot hold #, which starts a comment in the config file." }
        return nil
    }

    public init() {}

    /// The settings in `text`, and a sentence for each line that could not be used. Lines end with
    /// LF, CRLF or CR; a line that was not UTF-8 (shown with U+FFFD in its place) is reported by
    /// number and the others still apply.
    public init(parsing text: String, source: String = "config") throws(Problems) {
        var problems: [String] = []
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let place = "\(source) line \(number + 1)"
            guard !raw.contains("\u{FFFD}") else {
                problems.append("\(place) is not UTF-8 text.")
                continue
            }
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let pair = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, !pair[0].isEmpty else {
                problems.append("\(place) is not “key = value”.")
                continue
            }
            switch pair[0] {
            case "resume-downloads":
                guard let value = Self.bool(pair[1]) else {
                    problems.append("\(place): resume-downloads is true or false, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 40))”.")
                    continue
                }
                resumeDownloads = value
            case "sync":
                guard ["auto", "manual"].contains(pair[1].lowercased()) else {
                    problems.append("\(place): sync is auto or manual, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 40))”.")
                    continue
                }
                syncsEditsByItself = pair[1].lowercased() == "auto"
            case "portal":
                guard Self.isWebAddress(pair[1]) else {
                    problems.append("\(place): portal is an http or https address, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 80))”.")
                    continue
                }
                portal = pair[1]
            case "mirror":
                guard Self.isWebAddress(pair[1]) else {
                    problems.append("\(place): mirror is an http or https address, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 80))”.")
                    continue
                }
                mirror = pair[1]
            case "webmap":
                guard ItemID(pair[1]) != nil else {
                    problems.append("\(place): webmap is an item id (32 hexadecimal characters), not “\(TerminalText.sanitizedLine(pair[1], maxLength: 80))”.")
                    continue
                }
                webMap = pair[1]
            case "theme":
                guard let value = ColorTheme(rawValue: pair[1].lowercased()) else {
                    problems.append("\(place): theme is \(ColorTheme.allCases.map(\.rawValue).joined(separator: ", ")), not “\(TerminalText.sanitizedLine(pair[1], maxLength: 40))”.")
                    continue
                }
                theme = value
            case "graphics":
                guard let value = GraphicsMode(rawValue: pair[1].lowercased()) else {
                    problems.append("\(place): graphics is \(GraphicsMode.allCases.map(\.rawValue).joined(separator: ", ")), not “\(TerminalText.sanitizedLine(pair[1], maxLength: 40))”.")
                    continue
                }
                graphics = value
            case "units":
                guard let value = DistanceUnits(rawValue: pair[1].lowercased()) else {
                    problems.append("\(place): units is metric or imperial, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 40))”.")
                    continue
                }
                units = value
            case "gpsd":
                guard let address = GPSDAddress(pair[1]) else {
                    problems.append("\(place): gpsd is host:port, such as 127.0.0.1:2947, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 80))”.")
                    continue
                }
                gpsd = address
            case "location":
                guard let point = GeoPoint(parsing: pair[1]) else {
                    problems.append("\(place): location is longitude,latitude, such as -68.2,44.39, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 80))”.")
                    continue
                }
                location = point
            case "client-id":
                let value = TerminalText.sanitizedLine(pair[1], maxLength: 100)
                guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
                    problems.append("\(place): client-id is an app's client id (letters and digits), not “\(value)”.")
                    continue
                }
                clientID = value
            case let name where name.hasPrefix("key."):
                guard let action = KeyAction(rawValue: String(name.dropFirst(4))) else {
                    problems.append("\(place): there is no action “\(TerminalText.sanitizedLine(String(name.dropFirst(4)), maxLength: 40))” to give a key to.")
                    continue
                }
                guard pair[1].count == 1, let key = pair[1].first, key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
                    problems.append("\(place): \(name) is one character, such as D, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 40))”.")
                    continue
                }
                if let other = keys.first(where: { $0.value == key && $0.key != action })?.key {
                    problems.append("\(place): \(name) = \(key), but \(key) is already the key for \(other.rawValue).")
                    continue
                }
                keys[action] = key
            default:
                problems.append("\(place): mapbook has no setting “\(TerminalText.sanitizedLine(pair[0], maxLength: 40))”.")
            }
        }
        if !problems.isEmpty { throw Problems(settings: self, sentences: problems) }
    }

    /// Lines that could not be used, with the settings the others gave.
    public struct Problems: Error, Sendable {
        public var settings: Settings
        public var sentences: [String]
    }

    /// Where the file is.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGDirectories.config(environment) + "/config"
    }

    /// The settings in the file (defaults when there is none), and sentences about what could not
    /// be used.
    public static func load(from path: String = Settings.path()) -> (Settings, [String]) {
        guard FileManager.default.fileExists(atPath: path) else { return (Settings(), []) }
        guard let data = FileManager.default.contents(atPath: path) else {
            return (Settings(), ["\(path) could not be read; the defaults apply."])
        }
        // Bytes that are not UTF-8 spoil their own line only (see `init(parsing:)`).
        let text = String(decoding: data, as: UTF8.self)
        do {
            return (try Settings(parsing: text, source: (path as NSString).lastPathComponent), [])
        } catch {
            return (error.settings, error.sentences)
        }
    }

    private static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }
}

/// The browser's colours: `auto` (colour unless `NO_COLOR` or the terminal has none), `dark` and
/// `light` (for dark and light terminal backgrounds), `mono` (attributes only).
public enum ColorTheme: String, CaseIterable, Sendable {
    case auto, dark, light, mono
}

/// How the browser draws maps: in pixels where the terminal shows pictures (`auto`: asked of the
/// terminal; `kitty`, `sixel` or `iterm` by name), else — and with `off` — in characters: `braille`
/// dots (the sharpest), half `blocks` (for fonts whose braille is poor), or `ascii` for everything
/// (as `--ascii`).
public enum GraphicsMode: String, CaseIterable, Sendable {
    case auto, kitty, sixel, iterm, off, braille, blocks, ascii
}

/// What a key can be set to do in the config (`key.download = D`): the browser's one-key actions.
/// Moving (the arrows and hjkl), Enter and Esc stay as they are.
public enum KeyAction: String, CaseIterable, Sendable {
    case download, downloadAll = "download-all", cancel, remove, update, refresh, syncEdits = "sync-edits"
    case map, details, filter, search, order, downloadedFirst = "downloaded-first"
    case maps, signIn = "sign-in", help, quit
    case zoomIn = "zoom-in", zoomOut = "zoom-out", home, bookmarks, layers, basemaps
    case whatsHere = "whats-here", identify, ruler, pin, pins, drawing, directions, newArea = "new-area"
    case copyPosition = "copy-position", copyExtent = "copy-extent", locate, recordTrack = "record-track", goTo = "go-to"
    case keepMine = "keep-mine", takeTheirs = "take-theirs", undoEdit = "undo-edit", redoEdit = "redo-edit"
    case addFeature = "add-feature", editFeature = "edit-feature", moveFeature = "move-feature", deleteFeature = "delete-feature"
}

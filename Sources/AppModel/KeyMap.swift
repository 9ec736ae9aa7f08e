import MapbookCore
import UserFiles

/// Where a binding applies.
public enum KeyContext: String, Hashable, Sendable, CaseIterable {
    case everywhere = "Everywhere"
    case list = "List and map"
    case filter = "While typing a filter"
    case search = "While searching for a place"
    case confirm = "When asked to confirm"
    case form = "While filling in a pin or signing in"
    case map = "Map view"
    /// Over the map's own keys: those the panel takes, the rest work as on the map.
    case directions = "Directions panel"
    /// A list over the map (bookmarks, layers, basemaps, pins): its keys, the rest as on the map.
    case mapList = "A list over the map"
    case help = "Help"
}

/// One line of the key map: the keys, what they do, and how help and the status bar show them.
public struct KeyBinding: Equatable, Sendable {
    public var keys: [Key]
    /// Intent to dispatch; nil for bindings handled by the filter editor itself.
    public var intent: Intent?
    /// The name the config gives it a key by (`key.download = D`); nil for keys that stay as they are.
    public var action: KeyAction? = nil
    /// How the keys are written in help, e.g. "↑ k".
    public var label: String
    public var summary: String
    public var context: KeyContext
    /// Short hint for the status bar ("/ filter"); nil to leave it out.
    public var hint: String?
    /// A list or map key that knowingly takes a key that works everywhere, there (checked by a test).
    public var shadowsGlobalKeys = false
    /// In a list over the map: the lists the row works in (nil: every one), so each shows its own hints.
    public var onlyIn: [MapPanel]? = nil
}

/// The one table of keys. Help is generated from it, so it cannot drift from what the keys do.
public enum KeyMap {
    public static let bindings: [KeyBinding] = [
        KeyBinding(keys: [.up, .character("k")], intent: .move(.up), label: "↑ k", summary: "Previous row; scroll up",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.down, .character("j")], intent: .move(.down), label: "↓ j", summary: "Next row; scroll down",
                   context: .everywhere, hint: "↑↓ move"),
        KeyBinding(keys: [.pageUp], intent: .move(.pageUp), label: "PgUp", summary: "One page up", context: .everywhere, hint: nil),
        KeyBinding(keys: [.pageDown], intent: .move(.pageDown), label: "PgDn", summary: "One page down", context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("g"), .home], intent: .move(.top), label: "g Home", summary: "First row; top", context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("G"), .end], intent: .move(.bottom), label: "G End", summary: "Last row; bottom", context: .everywhere, hint: nil),
        KeyBinding(keys: [.left, .character("h")], intent: .move(.left), label: "← h",
                   summary: "Map focused: nearest area to the left (← → ↑ ↓ alike)", context: .list, hint: nil),
        KeyBinding(keys: [.right, .character("l")], intent: .move(.right), label: "→ l", summary: "Map focused: nearest area to the right",
                   context: .list, hint: nil),
        KeyBinding(keys: [.enter], intent: .open, label: "Enter", summary: "An area's details; the web map's map",
                   context: .list, hint: nil),
        KeyBinding(keys: [.character("m")], intent: .list(.openMap), action: .map, label: "m",
                   summary: "The selected row's map, full screen (offline from a downloaded area)", context: .list, hint: "m map"),
        KeyBinding(keys: [.character("i")], intent: .list(.showDetails), action: .details, label: "i", summary: "The selected row's details", context: .list, hint: nil),
        KeyBinding(keys: [.tab, .backTab], intent: .list(.switchFocus), label: "Tab", summary: "Switch focus between list and map",
                   context: .list, hint: nil),
        KeyBinding(keys: [.character("/")], intent: .list(.startFilter), action: .filter, label: "/", summary: "Filter the list as you type (fuzzy)",
                   context: .list, hint: "/ filter"),
        KeyBinding(keys: [.character("s")], intent: .startSearch, action: .search, label: "s", summary: "Search for a place and open the map there",
                   context: .list, hint: "s search"),
        KeyBinding(keys: [.character("o")], intent: .list(.cycleOrder), action: .order, label: "o",
                   summary: "Order the areas: the portal's, nearest to the place searched last, by name, by size", context: .list, hint: nil),
        KeyBinding(keys: [.character("O")], intent: .list(.toggleDownloadedFirst), action: .downloadedFirst, label: "O", summary: "Downloaded areas first, or in their place",
                   context: .list, hint: nil),
        KeyBinding(keys: [.character("d")], intent: .area(.download), action: .download, label: "d", summary: "Download the selected area",
                   context: .everywhere, hint: "d download"),
        KeyBinding(keys: [.character("D")], intent: .area(.downloadAll), action: .downloadAll, label: "D", summary: "Download every area not on this device",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("c")], intent: .area(.cancel), action: .cancel, label: "c", summary: "Cancel the selected area's download",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("u")], intent: .area(.update), action: .update, label: "u", summary: "Update a downloaded area the portal has changed",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("K")], intent: .area(.keepMine), action: .keepMine, label: "K",
                   summary: "The selected area's changes held in conflict with the server's: send yours (asks first)", context: .list, hint: nil),
        KeyBinding(keys: [.character("T")], intent: .area(.takeTheirs), action: .takeTheirs, label: "T",
                   summary: "The selected area's changes held in conflict: take the server's values there (asks first)", context: .list, hint: nil),
        KeyBinding(keys: [.character("y")], intent: .area(.syncEdits), action: .syncEdits, label: "y",
                   summary: "Sync the selected area's edits (on the web map's row, every area's)", context: .list, hint: nil),
        KeyBinding(keys: [.character("x")], intent: .area(.remove), action: .remove, label: "x", summary: "Remove the selected area from this device (asks first)",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("M")], intent: .maps(.show), action: .maps, label: "M",
                   summary: "Maps: open another web map (recent, your content, your groups', a search; ←→ between them, / types a search)", context: .list, hint: nil),
        KeyBinding(keys: [.character("S")], intent: .signIn, action: .signIn, label: "S",
                   summary: "Sign in to the portal with a username and password (mapbook auth login for OAuth)", context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("r")], intent: .refresh, action: .refresh, label: "r",
                   summary: "Retry a failed download or failed directions; elsewhere reload the web map and its areas",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.escape], intent: .back, label: "Esc", summary: "Back; clear the filter; close help",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("?")], intent: .toggleHelp, action: .help, label: "?", summary: "Show or hide this help",
                   context: .everywhere, hint: "? help"),
        KeyBinding(keys: [.character("q")], intent: .quit, action: .quit, label: "q", summary: "Quit", context: .everywhere, hint: "q quit"),
    ] + MapFeature.keys + DirectionsFeature.keys + [
        // Any other character typed while filtering is `.filter(.type(character))` (see `intent(for:in:)`).
        KeyBinding(keys: [], intent: nil, label: "text", summary: "Typed characters narrow the list", context: .filter, hint: "type to filter"),
        KeyBinding(keys: [.backspace], intent: .filter(.deleteBackward), label: "Backspace", summary: "Delete the last character",
                   context: .filter, hint: nil),
        KeyBinding(keys: [.enter], intent: .filter(.keep), label: "Enter", summary: "Keep the filter and go back to the list",
                   context: .filter, hint: "Enter keep"),
        KeyBinding(keys: [.escape], intent: .filter(.clear), label: "Esc", summary: "Clear the filter", context: .filter, hint: "Esc clear"),
        KeyBinding(keys: [], intent: nil, label: "text", summary: "Typed characters ask the geocoder for places", context: .search, hint: nil),
        KeyBinding(keys: [.up, .down], intent: nil, label: "↑↓", summary: "Choose a place", context: .search, hint: "↑↓ choose"),
        KeyBinding(keys: [.backspace], intent: .search(.deleteBackward), label: "Backspace", summary: "Delete the last character",
                   context: .search, hint: nil),
        KeyBinding(keys: [.enter], intent: .search(.pick), label: "Enter", summary: "Open the map on the chosen place, marked with a pin",
                   context: .search, hint: "Enter go"),
        KeyBinding(keys: [.escape], intent: .search(.close), label: "Esc", summary: "Close the search", context: .search, hint: "Esc close"),
        KeyBinding(keys: [], intent: nil, label: "text", summary: "Typed characters go into the field", context: .form, hint: nil),
        KeyBinding(keys: [.tab, .down], intent: .form(.nextField), label: "Tab ↓", summary: "Next field", context: .form, hint: nil),
        KeyBinding(keys: [.backTab, .up], intent: .form(.previousField), label: "S-Tab ↑", summary: "Previous field", context: .form, hint: nil),
        KeyBinding(keys: [.backspace], intent: .form(.deleteBackward), label: "Backspace", summary: "Delete the last character",
                   context: .form, hint: nil),
        KeyBinding(keys: [.left], intent: .form(.adjust(-1)), label: "←", summary: "A new area's level of detail: coarser", context: .form, hint: nil),
        KeyBinding(keys: [.right], intent: .form(.adjust(1)), label: "→", summary: "A new area's level of detail: finer", context: .form, hint: nil),
        KeyBinding(keys: [.enter], intent: .form(.save), label: "Enter", summary: "Keep the pin; sign in", context: .form, hint: nil),
        KeyBinding(keys: [.escape], intent: .form(.cancel), label: "Esc", summary: "Leave without keeping it", context: .form, hint: nil),
        KeyBinding(keys: [.character("y"), .character("Y"), .enter], intent: .confirm(true), label: "y Enter", summary: "Yes, go ahead",
                   context: .confirm, hint: nil),
        KeyBinding(keys: [.character("n"), .character("N"), .escape, .character("q")], intent: .confirm(false), label: "n Esc",
                   summary: "No, leave it", context: .confirm, hint: nil),
        KeyBinding(keys: [.up, .down, .pageUp, .pageDown], intent: nil, label: "↑↓ PgUp PgDn", summary: "Scroll the help", context: .help,
                   hint: "↑↓ scroll"),
        KeyBinding(keys: [.escape], intent: .back, label: "Esc", summary: "Close the help (as ?)", context: .help, hint: "Esc close"),
    ]

    /// The table with keys given to other actions in the config: each action overridden takes its
    /// key alone, and the key leaves whatever had it where the two apply together.
    public static func bindings(overriding keys: [KeyAction: Character]) -> [KeyBinding] {
        guard !keys.isEmpty else { return bindings }
        return bindings.map { binding in
            guard [.everywhere, .list, .map, .directions, .mapList].contains(binding.context) else { return binding }
            var binding = binding
            if let action = binding.action, let character = keys[action] {
                let label = String(character)
                binding.keys = [.character(character)]
                binding.label = label
                binding.hint = binding.hint.map { hint in label + hint.drop { $0 != " " } }
                return binding
            }
            let taken = keys.filter { action, _ in
                bindings.contains { $0.action == action && overlaps($0.context, binding.context) }
            }.map { Key.character($0.value) }
            binding.keys.removeAll { taken.contains($0) }
            if binding.keys.isEmpty, binding.intent != nil { binding.label = "–"; binding.hint = nil }
            return binding
        }
    }

    private static func overlaps(_ a: KeyContext, _ b: KeyContext) -> Bool {
        a == b || a == .everywhere || b == .everywhere || Set([a, b]) == [.map, .directions] || Set([a, b]) == [.map, .mapList]
    }

    /// The intent a key asks for in a context: answering a question looks only at its own keys;
    /// typing a filter at its own, then types characters, and leaves other keys to the list; the
    /// map view's own keys come before the ones that work everywhere; the list (and help) takes the
    /// keys that work everywhere, then the list's.
    public static func intent(for key: Key, in context: KeyContext = .list, bindings: [KeyBinding] = bindings) -> Intent? {
        func bound(_ context: KeyContext) -> Intent? {
            bindings.first { $0.context == context && $0.intent != nil && $0.keys.contains(key) }?.intent
        }
        switch context {
        case .form:
            if let intent = bound(.form) { return intent }
            if case .character(let character) = key { return .form(.type(character)) }
            return nil
        case .search:
            if let intent = bound(.search) { return intent }
            switch key {
            case .tab, .backTab: return .list(.switchFocus)
            case .up: return .search(.previous)
            case .down: return .search(.next)
            case .character(let character): return .search(.type(character))
            default: return nil
            }
        case .filter, .confirm:
            if let intent = bound(context) { return intent }
            if context == .confirm { return nil }
            // Characters are typed; other keys (arrows, Page Down…) still move in the list.
            if case .character(let character) = key { return .filter(.type(character)) }
        case .directions, .mapList:
            if let intent = bound(context) { return intent }
            return Self.intent(for: key, in: .map, bindings: bindings)
        case .map:
            // The pan keys (unless the config gave one to another action).
            if bindings.contains(where: { $0.context == .map && $0.intent == nil && $0.keys.contains(key) }) {
                switch key {
                case .up, .character("k"): return .move(.up)
                case .down, .character("j"): return .move(.down)
                case .left, .character("h"): return .move(.left)
                case .right, .character("l"): return .move(.right)
                default: break
                }
            }
        case .help:
            if let intent = bound(.help) { return intent }
        case .everywhere, .list:
            break
        }
        let contexts: [KeyContext] = context == .map ? [.map, .everywhere] : [.everywhere, .list]
        return contexts.lazy.compactMap(bound).first
    }

    /// Status bar hints while loading or when a card says why there is no list: only the keys that
    /// do something there.
    /// The status bar's hints in a phase; cut off from the portal, only keys that still work.
    public static func hints(for phase: LoadPhase, bindings: [KeyBinding] = bindings, offline: Bool = false) -> [String] {
        switch phase {
        case .loaded: hints(bindings: offline ? bindings.filter { !($0.intent?.needsPortal ?? false) } : bindings)
        case .unreachable, .notAnswering, .failed:
            [(Intent.refresh, "try now"), (.toggleHelp, "help"), (.quit, "quit")].compactMap { intent, what in key(for: intent, bindings).map { "\($0) \(what)" } }
        case .starting, .loading:
            [(Intent.toggleHelp, "help"), (.quit, "quit")].compactMap { intent, what in key(for: intent, bindings).map { "\($0) \(what)" } }
        }
    }

    /// The (first) character key for an intent, as text; nil when it has none.
    public static func key(for intent: Intent, _ bindings: [KeyBinding] = bindings) -> String? {
        bindings.first { $0.intent == intent && [.everywhere, .list, .map].contains($0.context) }?.keys.lazy.compactMap(\.character).first.map(String.init)
    }

    /// Status bar hints of a context, in table order; over the map, those of the list `panel`.
    public static func hints(in context: KeyContext = .list, panel: MapPanel? = nil, bindings: [KeyBinding] = bindings) -> [String] {
        let contexts: [KeyContext] = switch context {
        case .everywhere, .list: [.everywhere, .list]
        default: [context]
        }
        func applies(_ binding: KeyBinding) -> Bool {
            guard let only = binding.onlyIn, let panel else { return true }
            return only.contains(panel)
        }
        return bindings.filter { contexts.contains($0.context) && applies($0) }.compactMap(\.hint)
    }
}

extension Key {
    /// The character of a character key.
    var character: Character? {
        if case .character(let character) = self { return character }
        return nil
    }
}

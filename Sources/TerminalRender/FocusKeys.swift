import AppModel
import TerminalCanvas

/// The keys of what has focus (`AppState.cardFocus`): a card over the screen, or a list or card over
/// the map. The status bar shows them, and a card's border shows as many as it has room for, so
/// the two never differ; keys the config may give another key are named as bound.
enum FocusKeys {
    /// The keys, first ones first; nil when the screen itself has focus (or a card that lets the
    /// screen's keys work, such as identify over the map).
    static func of(_ state: AppState) -> [String]? {
        switch state.cardFocus {
        case .help?: return KeyMap.hints(in: .help, bindings: state.preferences.keyBindings)
        case .confirm?:
            if case .confirm(let confirmation)? = state.overlay { return confirmation.answers.components(separatedBy: " · ") }
            return nil
        case .filter?: return KeyMap.hints(in: .filter)
        case .search?: return search
        case .pinForm?: return pinForm
        case .signIn?: return signIn
        case .newArea?: return newArea
        case .featureForm?: return featureForm
        case .maps?:
            guard case .maps(let maps)? = state.overlay else { return nil }
            return self.maps(maps, state: state)
        case .mapPanel(let panel)?: return KeyMap.hints(in: .mapList, panel: panel, bindings: state.preferences.keyBindings)
        case .directions?: return KeyMap.hints(in: .directions, bindings: state.preferences.keyBindings)
        case .identify?, .whatsHere?, .ruler?, .goTo?, nil: return nil
        }
    }

    /// The place search's keys, from the table (they are not the config's to change).
    static var search: [String] { KeyMap.hints(in: .search) }
    // The forms' and the Maps card's keys say what Enter does in each (keep, sign in, make; open or
    // download on the Packages tab), which a row of the table shared by them cannot.
    static let pinForm = ["Tab next", "Enter keep", "Esc leave"]
    static let signIn = ["Tab next", "Enter sign in", "Esc leave"]
    static let newArea = ["Tab next", "←→ detail", "Enter make", "Esc leave"]
    static let featureForm = ["Tab next", "←→ choose", "Enter save", "Esc leave"]

    static func maps(_ maps: WebMapsBrowser, state: AppState) -> [String] {
        if maps.isTypingQuery { return ["Enter search", "Tab tabs", "Esc stop typing"] }
        if maps.tab == .packages {
            return ["←→ tabs", "Enter open or download", "\(state.key(.area(.update))) update", "\(state.key(.area(.remove))) remove", "Esc close"]
        }
        return ["←→ tabs", "Enter open", "/ search", "Esc close"]
    }

    /// As many of `keys` as `width` columns hold, the first ones first, joined as a border shows them.
    static func fitted(_ keys: [String], width: Int) -> String {
        var text = ""
        for part in keys where DisplayWidth.of(text + " · " + part) + 2 <= width { text += (text.isEmpty ? "" : " · ") + part }
        return " \(text) "
    }
}

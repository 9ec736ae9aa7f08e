/// A key press, as the terminal backend reports it.
public enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace
}

/// Everything a user can ask for. Keys and mouse events become intents; `AppModel.dispatch` is the
/// one place that acts on them.
public enum Intent: Hashable, Sendable {
    case moveUp, moveDown, moveLeft, moveRight
    case pageUp, pageDown, top, bottom
    case open, back, quit
    case startFilter, refresh, switchFocus, toggleHelp
    case download, downloadAll, cancelDownload, remove, update
    /// A list row picked with the mouse (index into the visible rows).
    case selectRow(Int)
    /// Mouse wheel: rows to move the selection by.
    case scroll(Int)
}

/// Where a binding applies.
public enum KeyContext: String, Hashable, Sendable, CaseIterable {
    case everywhere = "Everywhere"
    case list = "List and map"
    case filter = "While typing a filter"
    case confirm = "When asked to confirm"
}

/// One line of the key map: the keys, what they do, and how help and the status bar show them.
public struct KeyBinding: Sendable {
    public var keys: [Key]
    /// Intent to dispatch; nil for bindings handled by the filter editor itself.
    public var intent: Intent?
    /// How the keys are written in help, e.g. "↑ k".
    public var label: String
    public var summary: String
    public var context: KeyContext
    /// Short hint for the status bar ("/ filter"); nil to leave it out.
    public var hint: String?
}

/// The one table of keys. Help is generated from it, so it cannot drift from what the keys do.
public enum KeyMap {
    public static let bindings: [KeyBinding] = [
        KeyBinding(keys: [.up, .character("k")], intent: .moveUp, label: "↑ k", summary: "Previous row; scroll up",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.down, .character("j")], intent: .moveDown, label: "↓ j", summary: "Next row; scroll down",
                   context: .everywhere, hint: "↑↓ move"),
        KeyBinding(keys: [.pageUp], intent: .pageUp, label: "PgUp", summary: "One page up", context: .everywhere, hint: nil),
        KeyBinding(keys: [.pageDown], intent: .pageDown, label: "PgDn", summary: "One page down", context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("g"), .home], intent: .top, label: "g Home", summary: "First row; top", context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("G"), .end], intent: .bottom, label: "G End", summary: "Last row; bottom", context: .everywhere, hint: nil),
        KeyBinding(keys: [.left, .character("h")], intent: .moveLeft, label: "← h",
                   summary: "Map focused: nearest area to the left (← → ↑ ↓ alike)", context: .list, hint: nil),
        KeyBinding(keys: [.right, .character("l")], intent: .moveRight, label: "→ l", summary: "Map focused: nearest area to the right",
                   context: .list, hint: nil),
        KeyBinding(keys: [.enter], intent: .open, label: "Enter", summary: "Open the selected row's details", context: .list, hint: "Enter details"),
        KeyBinding(keys: [.tab, .backTab], intent: .switchFocus, label: "Tab", summary: "Switch focus between list and map",
                   context: .list, hint: nil),
        KeyBinding(keys: [.character("/")], intent: .startFilter, label: "/", summary: "Filter the list as you type (fuzzy)",
                   context: .list, hint: "/ filter"),
        KeyBinding(keys: [.character("d")], intent: .download, label: "d", summary: "Download the selected area",
                   context: .everywhere, hint: "d download"),
        KeyBinding(keys: [.character("D")], intent: .downloadAll, label: "D", summary: "Download every area not on this device",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("c")], intent: .cancelDownload, label: "c", summary: "Cancel the selected area's download",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("u")], intent: .update, label: "u", summary: "Update a downloaded area the portal has changed",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("x")], intent: .remove, label: "x", summary: "Remove the selected area from this device (asks first)",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("r")], intent: .refresh, label: "r",
                   summary: "Retry a failed download; elsewhere reload the web map and its areas",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.escape], intent: .back, label: "Esc", summary: "Back; clear the filter; close help",
                   context: .everywhere, hint: nil),
        KeyBinding(keys: [.character("?")], intent: .toggleHelp, label: "?", summary: "Show or hide this help",
                   context: .everywhere, hint: "? help"),
        KeyBinding(keys: [.character("q")], intent: .quit, label: "q", summary: "Quit", context: .everywhere, hint: "q quit"),
        KeyBinding(keys: [], intent: nil, label: "text", summary: "Typed characters narrow the list", context: .filter, hint: nil),
        KeyBinding(keys: [.backspace], intent: nil, label: "Backspace", summary: "Delete the last character", context: .filter, hint: nil),
        KeyBinding(keys: [.enter], intent: nil, label: "Enter", summary: "Keep the filter and go back to the list",
                   context: .filter, hint: nil),
        KeyBinding(keys: [.escape], intent: nil, label: "Esc", summary: "Clear the filter", context: .filter, hint: nil),
        KeyBinding(keys: [.character("y"), .enter], intent: nil, label: "y Enter", summary: "Yes, go ahead", context: .confirm, hint: nil),
        KeyBinding(keys: [.character("n"), .escape], intent: nil, label: "n Esc", summary: "No, leave it", context: .confirm, hint: nil),
    ]

    /// The intent a key asks for outside filter typing.
    public static func intent(for key: Key) -> Intent? {
        bindings.first { $0.intent != nil && $0.keys.contains(key) }?.intent
    }

    /// Status bar hints, in table order.
    public static var hints: [String] { bindings.compactMap(\.hint) }
}

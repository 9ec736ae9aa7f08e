/// Everything a user can ask for. Keys, mouse events and plain-mode commands become intents;
/// `update` is the one place that acts on them. The vocabulary is nested by where an intent
/// belongs — the list, an area, the map, the Maps card — so each handler matches its own type
/// exhaustively and passes on the rest by type; moving and a few keys (Enter, Esc, q, ?, r) mean
/// something everywhere.
public enum Intent: Hashable, Sendable {
    /// Through what is shown: a list's selection, a document's lines; on the map, panning.
    case move(Move)
    /// Enter: the selected thing (a row's details, a bookmark, a basemap…).
    case open
    /// Esc: close what is open, or go back.
    case back
    case quit, toggleHelp
    /// `r`: retry a failed download; elsewhere reload.
    case refresh
    /// `s`: search for a place.
    case startSearch
    /// `S`: sign in to the portal with a username and password.
    case signIn
    /// Directions through places given as words, each `LON,LAT` or a name (the plain mode's
    /// `directions A to B`).
    case directions(through: [String])
    case list(ListIntent)
    case area(AreaIntent)
    case map(MapIntent)
    case maps(MapsIntent)
    /// While filling in a form: a pin's title, note and link; a username and password.
    case form(FormEdit)
    /// While typing the list's filter.
    case filter(FilterEdit)
    /// While typing a place to search for.
    case search(SearchEdit)
    /// The answer to a confirmation.
    case confirm(Bool)
}

/// A move through a list or a document (on the map: a pan; the wheel zooms).
public enum Move: Hashable, Sendable {
    case up, down, left, right
    case pageUp, pageDown, top, bottom
    /// Mouse wheel: rows (notches) to move by, down positive.
    case scroll(Int)
}

/// The areas list and the overview beside it.
public enum ListIntent: Hashable, Sendable {
    /// `m`: the selected row's map; `i`: its details.
    case openMap, showDetails
    case startFilter, switchFocus
    /// `o`: the next order of the areas; `O`: the downloaded ones first, or not.
    case cycleOrder, toggleDownloadedFirst
    /// A row picked with the mouse (index into the visible rows).
    case selectRow(Int)
}

/// What can be done to the selected area (in the pins table, `remove` deletes the pin).
extension Intent {
    /// What cannot work without the portal: starting a download or an update, signing in.
    public var needsPortal: Bool {
        switch self {
        case .area(.download), .area(.downloadAll), .area(.update), .area(.syncEdits), .area(.keepMine), .area(.takeTheirs), .signIn: true
        default: false
        }
    }
}

public enum AreaIntent: Hashable, Sendable {
    case download, downloadAll, cancel, remove, update
    /// The selected area's edits sent back (every area's on the web map's row).
    case syncEdits
    /// The changes its last sync held because the server changed the same fields: sent as they are
    /// (`keepMine`), or with the server's values in those fields (`takeTheirs`), after asking.
    case keepMine, takeTheirs
}

/// Editing a form's fields.
public enum FormEdit: Hashable, Sendable {
    case type(Character)
    case deleteBackward
    case nextField, previousField
    /// ← and →: a choice field's previous or next value (-1, 1).
    case adjust(Int)
    case save, cancel
    /// A field named (by its name or label) given a value as typed: the plain mode's `set`.
    case set(field: String, value: String)
}

/// Editing the filter line.
public enum FilterEdit: Hashable, Sendable {
    case type(Character)
    case deleteBackward
    /// Keep the filter and go back to the list.
    case keep
    /// Clear the filter and go back to the list.
    case clear
}

/// Editing the place search line and choosing among its suggestions.
public enum SearchEdit: Hashable, Sendable {
    case type(Character)
    case deleteBackward
    case previous, next
    /// Go to the chosen suggestion (or what was typed).
    case pick
    case close
}

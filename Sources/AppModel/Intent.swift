/// Everything a user can ask for. Keys, mouse events and plain-mode commands become intents;
/// `update` is the one place that acts on them. Most apply wherever they make sense (a move scrolls
/// a document, moves the selection, or pans the map); typing a filter and answering a question have
/// intents of their own.
public enum Intent: Hashable, Sendable {
    case moveUp, moveDown, moveLeft, moveRight
    case pageUp, pageDown, top, bottom
    case open, back, quit
    case startFilter, startSearch, refresh, switchFocus, toggleHelp
    /// `o`: the next order of the areas; `O`: the downloaded ones first, or not.
    case cycleOrder, toggleDownloadedFirst
    case download, downloadAll, cancelDownload, remove, update
    /// `m`: the selected row's map; `i`: its details.
    case openMap, showDetails
    case zoomIn, zoomOut, home, showBookmarks, showLayers, showBasemaps, whatsHere, cycleMapMode
    /// `i` in the map: what lies under the centre; `Tab`: the next thing found.
    case identify, nextHit
    /// `R` in the map: start a ruler at the centre, or fix a point of it there.
    case ruler
    /// A click on the map: identify at that cell of it.
    case identifyAt(column: Int, row: Int)
    /// `p`: a pin at the centre; `P`: the pins table; in it `e` edits and `o` opens the link.
    case dropPin, showPins, editPin, openLink
    /// While filling in a form: a pin's title, note and link; a username and password.
    case form(FormEdit)
    /// `S`: sign in to the portal with a username and password.
    case signIn
    /// `M`: the Maps card, to open another web map.
    case showMaps
    /// Typed in the plain mode: the Maps card on a tab, a search for web maps, the web map in a
    /// row of the card (from 0).
    case showMapsTab(WebMapsTab), searchMaps(String), chooseMap(Int)
    /// Space in the layer list: show or hide the layer.
    case toggle
    /// Mouse drag on the map: cells moved (right and down positive).
    case pan(columns: Int, rows: Int)
    /// Mouse wheel on the map: levels (in positive), toward a cell of the map.
    case zoomAt(steps: Int, column: Int, row: Int)
    /// A list row picked with the mouse (index into the visible rows).
    case selectRow(Int)
    /// Mouse wheel: rows to move the selection by.
    case scroll(Int)
    /// While typing the list's filter.
    case filter(FilterEdit)
    /// While typing a place to search for.
    case search(SearchEdit)
    /// The answer to a confirmation.
    case confirm(Bool)
}

/// Editing a form's fields.
public enum FormEdit: Hashable, Sendable {
    case type(Character)
    case deleteBackward
    case nextField, previousField
    case save, cancel
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

import Geometry
/// The map view and the cards over it.
public enum MapIntent: Hashable, Sendable {
    case zoomIn, zoomOut, home
    /// Mouse drag: cells moved (right and down positive).
    case pan(columns: Int, rows: Int)
    /// Mouse wheel: levels (in positive), toward a cell of the map.
    case zoomAt(steps: Int, column: Int, row: Int)
    case showBookmarks, showLayers, showBasemaps, showPins
    case whatsHere, cycleMode
    /// `i`: what lies under the centre; `Tab`: the next thing found.
    case identify, nextHit
    /// `Tab` in the directions panel: the directions again by the portal's next travel mode; `Y`
    /// there: the directions as text to the clipboard.
    case nextTravelMode, copyDirections
    /// A click on the map: identify at that cell of it (with the ruler out: a point of it there).
    case identifyAt(column: Int, row: Int)
    /// `R`: start a ruler at the centre, or fix a point of it there.
    case ruler
    /// `t`: directions to here (with directions shown, a further stop); `[` `]` the directions
    /// asked before and after.
    case directions, previousDirections, nextDirections
    /// `p`: a pin at the centre; in the pins table `e` edits and `o` opens the link.
    case dropPin, editPin, openLink
    /// Space in the layer list: show or hide the layer.
    case toggle
    /// `N`: a map area of your own from the view.
    case newArea
    /// `a`: a point added to the area's layer at the centre; with a feature identified, `e` its
    /// values, `v` it moved to the centre, `X` it deleted.
    /// (The plain mode's `add point LAYER at LON,LAT` names the layer and the place.)
    case addFeature(at: GeoPoint? = nil, layer: String? = nil), editFeature, moveFeature, deleteFeature
    /// `U`: the last edit of the map's area (or of the web map, online) not yet synced undone; `Z`:
    /// the edit undone last brought back.
    case undoEdit, redoEdit
    /// Backspace with the ruler out: its last point taken back (the ruler's points are a new
    /// line's or area's vertices for `a`).
    case takeBackPoint
    /// `Y`: the centre's `LON,LAT` to the clipboard; `E`: the view's `W,S,E,N`.
    case copyPosition, copyExtent
    /// `f`: the map centred on this device's position; again, following it. `T`: a track recorded
    /// from the position, or (recording) ended and kept.
    case locate, recordTrack
    /// `g`: the go-to card for the pin chosen in the pins table, the place searched, the route's
    /// step looked at, the feature identified, else the centre.
    case goTo
}

extension MapFeature {
    /// The map view's keys (`KeyContext.map`), in the order help lists them; the status bar shows
    /// their hints.
    static let keys: [KeyBinding] = [
        KeyBinding(keys: [.up, .down, .left, .right, .character("h"), .character("j"), .character("k"), .character("l")],
                   intent: nil, label: "←↑↓→ hjkl", summary: "Pan a quarter of the view (or drag with the mouse)", context: .map, hint: "←↑↓→ pan"),
        KeyBinding(keys: [.character("+"), .character("=")], intent: .map(.zoomIn), action: .zoomIn, label: "+ =", summary: "Zoom in (or the wheel, toward the pointer)",
                   context: .map, hint: "+- zoom"),
        KeyBinding(keys: [.character("-"), .character("_")], intent: .map(.zoomOut), action: .zoomOut, label: "-", summary: "Zoom out", context: .map, hint: nil),
        KeyBinding(keys: [.character("0")], intent: .map(.home), action: .home, label: "0", summary: "Back to the whole map or area", context: .map, hint: "0 home"),
        KeyBinding(keys: [.character("f")], intent: .map(.locate), action: .locate, label: "f",
                   summary: "Where am I: centre on this device's position (gpsd, or the config's location); again: follow it (a pan stops)",
                   context: .map, hint: "f where"),
        KeyBinding(keys: [.character("g")], intent: .map(.goTo), action: .goTo, label: "g",
                   summary: "Go to: distance and bearing from this device's position to the pin chosen, the place searched, the route's step, the feature identified, else the centre, as you move",
                   context: .map, hint: nil, shadowsGlobalKeys: true),
        KeyBinding(keys: [.character("T")], intent: .map(.recordTrack), action: .recordTrack, label: "T",
                   summary: "Record a track from this device's position (again: end it; mapbook tracks exports it as GPX or GeoJSON)",
                   context: .map, hint: nil),
        KeyBinding(keys: [.character("b")], intent: .map(.showBookmarks), action: .bookmarks, label: "b", summary: "Bookmarks: go to a saved place",
                   context: .map, hint: "b bookmarks"),
        KeyBinding(keys: [.character("L")], intent: .map(.showLayers), action: .layers, label: "L",
                   summary: "Layers: Space shows or hides one (l pans, as in hjkl)", context: .map, hint: "L layers"),
        KeyBinding(keys: [.character("s")], intent: .startSearch, action: .search, label: "s", summary: "Search for a place and go there",
                   context: .map, hint: nil),
        KeyBinding(keys: [.character("w")], intent: .map(.whatsHere), action: .whatsHere, label: "w",
                   summary: "What's here: the address at the centre (offline, the nearest named place)", context: .map, hint: nil),
        KeyBinding(keys: [.character("i")], intent: .map(.identify), action: .identify, label: "i",
                   summary: "Identify: what lies at the centre (operational features, then the basemap's)", context: .map, hint: "i identify"),
        KeyBinding(keys: [.character("R")], intent: .map(.ruler), action: .ruler, label: "R",
                   summary: "Ruler: how far and which way from here (pan to measure; R or Enter adds a point; Esc ends)",
                   context: .map, hint: nil),
        KeyBinding(keys: [.character("t")], intent: .map(.directions), action: .directions, label: "t",
                   summary: "Directions to here (the place searched, a pin chosen in P, else the centre) from a place you type; shown: a further stop",
                   context: .map, hint: "t route"),
        KeyBinding(keys: [.character("N")], intent: .map(.newArea), action: .newArea, label: "N",
                   summary: "New map area of your own: the outlined part of the view, a name and a level of detail, exported by the servers",
                   context: .map, hint: nil),
        KeyBinding(keys: [.character("a")], intent: .map(.addFeature()), action: .addFeature, label: "a",
                   summary: "A downloaded area's map: add a point at the centre (or where you clicked), its values typed in its layer's form (with the ruler out: a line or area through its points)",
                   context: .map, hint: nil),
        KeyBinding(keys: [.character("U")], intent: .map(.undoEdit), action: .undoEdit, label: "U",
                   summary: "Undo the last edit of this map's area not yet synced", context: .map, hint: nil),
        KeyBinding(keys: [.character("Z")], intent: .map(.redoEdit), action: .redoEdit, label: "Z", summary: "Bring back the edit undone last",
                   context: .map, hint: nil),
        KeyBinding(keys: [.backspace], intent: .map(.takeBackPoint), label: "Backspace", summary: "With the ruler out: take back its last point",
                   context: .map, hint: nil),
        KeyBinding(keys: [.character("e")], intent: .map(.editFeature), action: .editFeature, label: "e",
                   summary: "A feature identified in a downloaded area: change its values in its form", context: .map, hint: nil),
        KeyBinding(keys: [.character("v")], intent: .map(.moveFeature), action: .moveFeature, label: "v",
                   summary: "A point identified in a downloaded area: move it to the centre", context: .map, hint: nil),
        KeyBinding(keys: [.character("X")], intent: .map(.deleteFeature), action: .deleteFeature, label: "X",
                   summary: "A feature identified in a downloaded area: delete it (asks first)", context: .map, hint: nil),
        KeyBinding(keys: [.character("Y")], intent: .map(.copyPosition), action: .copyPosition, label: "Y",
                   summary: "Copy the centre's position (LON,LAT, as commands take it) to the clipboard", context: .map, hint: nil),
        KeyBinding(keys: [.character("E")], intent: .map(.copyExtent), action: .copyExtent, label: "E",
                   summary: "Copy the view's extent (W,S,E,N, as area new --extent and --bbox take it) to the clipboard", context: .map, hint: nil),
        KeyBinding(keys: [.character("[")], intent: .map(.previousDirections), label: "[",
                   summary: "Directions: the ones asked before (↑↓ in the panel go through the steps)", context: .map, hint: nil),
        KeyBinding(keys: [.character("]")], intent: .map(.nextDirections), label: "]", summary: "Directions: the ones asked after",
                   context: .map, hint: nil),
        KeyBinding(keys: [.tab], intent: .map(.nextHit), label: "Tab", summary: "Identify found several: the next one", context: .map, hint: nil),
        KeyBinding(keys: [.character("p")], intent: .map(.dropPin), action: .pin, label: "p", summary: "Drop a pin at the centre: a title, a note, a link",
                   context: .map, hint: "p pin"),
        KeyBinding(keys: [.character("P")], intent: .map(.showPins), action: .pins, label: "P",
                   summary: "Pins: Enter goes there, e edits, x deletes, o opens the link", context: .map, hint: nil),
        KeyBinding(keys: [.character("B")], intent: .map(.showBasemaps), action: .basemaps, label: "B",
                   summary: "Basemaps: draw this map on another of the portal's basemaps", context: .map, hint: "B basemap"),
        KeyBinding(keys: [.enter], intent: .open, label: "Enter", summary: "With the ruler out: a point of it here (as R)", context: .map, hint: nil),
        KeyBinding(keys: [.character("c")], intent: .map(.cycleMode), action: .drawing, label: "c", summary: "Drawing: braille, blocks, ASCII",
                   context: .map, hint: nil,
                   shadowsGlobalKeys: true),
    ] + listKeys

    /// The keys of a list over the map (`KeyContext.mapList`): the rest work as on the map. Each
    /// list's card and status bar show the hints of the rows it takes.
    static let listKeys: [KeyBinding] = [
        KeyBinding(keys: [.up, .down], intent: nil, label: "↑↓", summary: "Choose a row", context: .mapList, hint: "↑↓ choose"),
        KeyBinding(keys: [.enter], intent: .open, label: "Enter",
                   summary: "Go to the bookmark or the pin, draw on the basemap, show or hide the layer", context: .mapList, hint: "Enter go",
                   onlyIn: [.bookmarks, .basemaps, .pins]),
        KeyBinding(keys: [.character(" ")], intent: .map(.toggle), label: "Space", summary: "In the layer list: show or hide the layer",
                   context: .mapList, hint: "Space show/hide", onlyIn: [.layers]),
        KeyBinding(keys: [.character("e")], intent: .map(.editPin), label: "e", summary: "In the pins list: edit the pin", context: .mapList,
                   hint: "e edit", onlyIn: [.pins]),
        KeyBinding(keys: [.character("x")], intent: .area(.remove), action: .remove, label: "x", summary: "In the pins list: delete the pin (asks first)",
                   context: .mapList, hint: "x delete", onlyIn: [.pins]),
        KeyBinding(keys: [.character("o")], intent: .map(.openLink), label: "o", summary: "In the pins list: open the pin's link (shown first)",
                   context: .mapList, hint: "o open link", onlyIn: [.pins]),
        KeyBinding(keys: [.escape], intent: .back, label: "Esc", summary: "Close the list", context: .mapList, hint: "Esc close"),
    ]
}

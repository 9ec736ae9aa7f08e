import TerminalCanvas
import TileFormats
import ArcGISModel
import Geometry

/// What to draw: a view, a size in cells, and how.
public struct MapRequest: Sendable, Equatable {
    public var viewport: MapViewport
    public var columns: Int
    public var rows: Int
    public var mode: MapMode
    public var hiddenLayers: Set<String>
    public var colors: Bool
    /// The terminal's background is light (the light theme): what no map covers is a light grey, not a dark one.
    public var lightTheme: Bool
    /// What the view shows besides where it looks: the map's own count of changes to it (layers
    /// opened, shown or hidden, an edit saved, a route). Two requests with the same count draw the
    /// same in what they share, so a pan may keep the last picture's pixels.
    public var content: Int

    public init(viewport: MapViewport, columns: Int, rows: Int, mode: MapMode = .braille, hiddenLayers: Set<String> = [],
                colors: Bool = true, lightTheme: Bool = false, content: Int = 0) {
        self.viewport = viewport; self.columns = columns; self.rows = rows; self.mode = mode
        self.hiddenLayers = hiddenLayers; self.colors = colors; self.lightTheme = lightTheme; self.content = content
    }
}

/// A drawn map: its picture (names still to place), what it was drawn for, and what could not be drawn.
public struct MapImage: Equatable, Sendable {
    /// Screens add their own marks and names to its pass, so all are placed together.
    public var picture: MapPicture
    public var request: MapRequest
    public var report: MapDrawReport
    /// Sentences for the status bar; empty when everything drew.
    public var problems: [String]
    /// Drawn at once from what was at hand while the rest of the view is on its way; the whole
    /// drawing follows.
    public var isAtHand = false
    /// The map in true pixels, for a terminal that shows pictures: the picture's cells are then
    /// blank (the terminal's own background, for the picture to show through) and its names are
    /// the ones placed for the pixels, written as text over them.
    public var pixels: RasterImage?

    public init(picture: MapPicture, request: MapRequest, report: MapDrawReport = MapDrawReport(), problems: [String] = []) {
        self.picture = picture; self.request = request; self.report = report; self.problems = problems
    }

    /// The map with its names and nothing more: what `snapshot` prints.
    public var frame: Frame { picture.finished().frame }

    /// Two drawings are the same when drawn for the same request, as completely, with the same
    /// report: the picture follows from them, and comparing its cells would cost a frame's work.
    public static func == (a: MapImage, b: MapImage) -> Bool {
        a.request == b.request && a.isAtHand == b.isAtHand && a.report == b.report && a.problems == b.problems
    }
}

/// One thing found under the pointer: its popup card and its geometry, to highlight it.
public struct IdentifyHit: Sendable, Equatable {
    /// Which feature it is, by its layer's title and object id: what an edit of it names.
    public struct Feature: Sendable, Equatable {
        public var layer: String
        public var objectID: Int64
        public init(layer: String, objectID: Int64) { self.layer = layer; self.objectID = objectID }
    }

    public var card: PopupCard
    public var geometry: GeoGeometry?
    /// A feature of an operational layer with an object id; nil for the basemap's and services'.
    public var feature: Feature?

    public init(card: PopupCard, geometry: GeoGeometry?, feature: Feature? = nil) { self.card = card; self.geometry = geometry; self.feature = feature }
}

import MapbookCore
import TerminalCanvas
import Geometry

/// What the map view lays over a map's picture: the identified feature, the ruler, the user's pins
/// and a searched place.
public struct MapOverlays: Sendable {
    public struct Ruler: Sendable {
        /// From its first point to the centre, as drawn.
        public var path: [GeoPoint]
        public var points: [GeoPoint]
        public var centre: GeoPoint

        public init(path: [GeoPoint], points: [GeoPoint], centre: GeoPoint) { self.path = path; self.points = points; self.centre = centre }
    }

    public var identified: (geometry: GeoGeometry, title: String)?
    public var ruler: Ruler?
    public var pins: [(title: String, point: GeoPoint)]
    public var searched: (label: String, point: GeoPoint)?

    public init(identified: (geometry: GeoGeometry, title: String)? = nil, ruler: Ruler? = nil, pins: [(title: String, point: GeoPoint)] = [],
                searched: (label: String, point: GeoPoint)? = nil) {
        self.identified = identified; self.ruler = ruler; self.pins = pins; self.searched = searched
    }

    /// The picture (one drawn for another size shows as far as it fits), then the identified
    /// feature's outline and the ruler's path, then every mark and name in one pass: the identified
    /// feature's first, the searched place's, the pins', the map's own. Returns where names went.
    @discardableResult
    public func draw(over picture: MapPicture?, viewport: MapViewport, into frame: inout Frame, rect: Rect, theme: MapTheme,
                     glyphs: GlyphSet, colors: Bool) -> [PlacedLabel] {
        guard !rect.isEmpty else { return [] }
        let ascii = glyphs == .ascii
        let size = (columns: rect.width, rows: rect.height)
        let projection = viewport.projection(columns: rect.width, rows: rect.height)
        var names = LabelPass()
        if let picture {
            frame.paste(picture.frame, at: (rect.x, rect.y), clip: rect)
            names = picture.names
        }
        if let identified {
            FeatureHighlight.drawPath(identified.geometry, viewport: viewport, into: &frame, rect: rect, ascii: ascii, colors: colors)
            names = names + FeatureHighlight.names(identified.geometry, title: identified.title, viewport: viewport, size: size, ascii: ascii)
        }
        if let ruler {
            FeatureHighlight.drawPath(.lines([ruler.path]), viewport: viewport, into: &frame, rect: rect, ascii: ascii, colors: colors,
                                      color: theme.ruler)
            for point in ruler.points {
                names.mark(point, glyph: ascii ? "o" : "●", rank: .selected, color: theme.ruler, projection: projection, size: size)
            }
            names.mark(ruler.centre, glyph: "+", rank: .selected, color: theme.ruler, projection: projection, size: size)
        }
        // A pin on the searched place's cell stands for it (it was pinned there): the pin shows, first
        // among the names, not hidden under the search marker.
        let searchedCell = searched.flatMap { projection.cell(MercatorPoint($0.point)) }
        var searchedIsPinned = false
        for pin in pins {
            let onSearched = searchedCell.map { cell in projection.cell(MercatorPoint(pin.point)).map { $0 == cell } ?? false } ?? false
            searchedIsPinned = searchedIsPinned || onSearched
            names.mark(pin.point, glyph: ascii ? "P" : "⚑", label: pin.title, rank: onSearched ? .selected : .pin, color: theme.pin,
                       projection: projection, size: size)
        }
        if let searched, !searchedIsPinned {
            names.mark(searched.point, glyph: ascii ? "@" : "◆", label: searched.label, rank: .selected, color: theme.selectedArea,
                       projection: projection, size: size)
        }
        return names.draw(into: &frame, rect: rect, colors: colors)
    }
}

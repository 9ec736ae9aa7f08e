import MapbookCore
import TerminalCanvas
import Geometry

/// The geography drawn under the overview when no tiles are at hand, projected once: a detailed
/// region (`land` with its subdivisions and neighbours) and the world's countries, for a web map
/// elsewhere.
public struct OverviewGeography: Sendable {
    /// Polygons (each a list of rings), in Web Mercator.
    public typealias Polygons = [[[MercatorPoint]]]

    public let neighbours: Polygons
    public let land: Polygons
    public let subdivisions: Polygons
    public let world: Polygons
    /// A few of the world's cities, named over its outline.
    public let cities: [(name: String, point: MercatorPoint)]
    /// The extent of `land`, for maps that have no extent of their own.
    public let landExtent: GeoExtent?

    /// `land` is filled and outlined, `subdivisions` (counties) outlined, `neighbours` drawn muted;
    /// `world` (countries, with `cities` named) stands in for all of them under a web map outside the region.
    public init(land: [GeoFeature], subdivisions: [GeoFeature] = [], neighbours: [GeoFeature] = [], world: [GeoFeature] = [],
                cities: [GeoFeature] = []) {
        func polygons(_ features: [GeoFeature]) -> Polygons {
            features.flatMap { feature -> Polygons in
                guard case .polygons(let polygons) = feature.geometry else { return [] }
                return polygons.map { $0.map { $0.map(MercatorPoint.init) } }
            }
        }
        self.land = polygons(land)
        self.subdivisions = polygons(subdivisions)
        self.neighbours = polygons(neighbours)
        self.world = polygons(world)
        self.cities = cities.compactMap { city in
            guard case .points(let points) = city.geometry, let point = points.first, let name = city.property("name")?.string else { return nil }
            return (name, MercatorPoint(point))
        }
        landExtent = land.compactMap(\.geometry.extent).union
    }

    /// Whether a view of `extent` shows the detailed region: its centre lies within the region (with
    /// a margin of half its size) and it is not many times larger. Else it is the world's.
    public func isRegional(_ extent: GeoExtent) -> Bool {
        guard let region = landExtent else { return world.isEmpty }
        let width = region.xmax - region.xmin, height = region.ymax - region.ymin
        let x = (extent.xmin + extent.xmax) / 2, y = (extent.ymin + extent.ymax) / 2
        return x >= region.xmin - width / 2 && x <= region.xmax + width / 2 && y >= region.ymin - height / 2 && y <= region.ymax + height / 2
            && extent.xmax - extent.xmin <= width * 4 && extent.ymax - extent.ymin <= height * 4
    }

    public static let empty = OverviewGeography(land: [])
}

/// One map area as the overview shows it.
public struct OverviewArea: Sendable, Equatable {
    public var title: String
    public var extent: GeoExtent

    public init(title: String, extent: GeoExtent) { self.title = title; self.extent = extent }
}

/// The overview pane's map: the geography, the web map's extent, every area's extent outlined, and
/// the selected one marked at its centre and named in a caption bar above the map. The view fits the web map and all its areas,
/// so the selection is always in view.
public struct OverviewMap: Sendable {
    public var geography: OverviewGeography
    public var webMapExtent: GeoExtent?
    public var areas: [OverviewArea]
    public var selected: Int?
    /// The user's pins in view, each a glyph and its title.
    public var pins: [(title: String, point: GeoPoint)]
    /// Where this device is, marked as on the map (no circle: the overview is far too coarse).
    public var here: MapOverlays.Here?

    public init(geography: OverviewGeography, webMapExtent: GeoExtent?, areas: [OverviewArea], selected: Int?,
                pins: [(title: String, point: GeoPoint)] = [], here: MapOverlays.Here? = nil) {
        self.geography = geography; self.webMapExtent = webMapExtent; self.areas = areas; self.selected = selected; self.pins = pins
        self.here = here
    }

    /// What the view must show: the web map and its areas, else the land.
    public var viewExtent: GeoExtent? {
        let parts = (webMapExtent.map { [$0] } ?? []) + areas.map(\.extent)
        return parts.union ?? geography.landExtent
    }

    /// The extents outlined, the lowest first: the web map's, the areas' (dimmed while one is
    /// selected), the selected one's in the accent colour over the others.
    func boxes(theme: MapTheme) -> [(extent: GeoExtent, color: PaletteIndex)] {
        let chosen = selected.flatMap { areas.indices.contains($0) ? $0 : nil }
        var boxes = webMapExtent.map { [($0, theme.webMapExtent)] } ?? []
        for (index, area) in areas.enumerated() where index != chosen {
            boxes.append((area.extent, chosen == nil ? theme.area : theme.otherArea))
        }
        if let chosen { boxes.append((areas[chosen].extent, theme.selectedArea)) }
        return boxes
    }

    /// The extents' outlines as lines, for a basemap in pixels that has them drawn into it.
    public func lines(theme: MapTheme) -> [MapOverlays.Line] {
        boxes(theme: theme).map { MapOverlays.Line(paths: [$0.extent.ring], color: $0.color, dots: 1) }
    }

    /// Draws a caption bar in `rect`'s top row (the selected area's name, else `title`) and the map
    /// below it.
    /// `basemap` is a picture of the map under this pane's map part, with the projection it was
    /// drawn with: the extents then go over it instead of over the outline (or, with
    /// `linesInPicture`, are drawn into a picture in pixels: `lines`).
    public func draw(into frame: inout Frame, rect: Rect, title: String, theme: MapTheme = MapTheme(), glyphs: GlyphSet, colors: Bool,
                     basemap: (picture: MapPicture, projection: MapProjection)? = nil, linesInPicture: Bool = false) {
        guard !rect.isEmpty else { return }
        let marker = glyphs == .unicode ? "◆" : "@"
        let bar = colors ? CellStyle(foreground: theme.captionText, background: theme.captionBar) : CellStyle(reverse: true)
        frame.fill(Rect(x: rect.x, y: rect.y, width: rect.width, height: 1), with: Cell(" ", style: bar))
        if let selected, areas.indices.contains(selected) {
            let x = frame.put(" \(marker)", x: rect.x, y: rect.y, style: colors ? CellStyle(foreground: theme.selectedArea, background: theme.captionBar) : bar, limit: rect.maxX)
            frame.put(DisplayWidth.truncated(" \(areas[selected].title)", to: rect.maxX - x), x: x, y: rect.y,
                      style: CellStyle(foreground: bar.foreground, background: bar.background, bold: true, reverse: bar.reverse), limit: rect.maxX)
        } else {
            frame.put(DisplayWidth.truncated(" \(title)", to: rect.width), x: rect.x, y: rect.y, style: bar, limit: rect.maxX)
        }
        drawMap(into: &frame, rect: Rect(x: rect.x, y: rect.y + 1, width: rect.width, height: rect.height - 1),
                theme: theme, marker: Character(marker), colors: colors, glyphs: glyphs, basemap: basemap,
                linesInPicture: linesInPicture && basemap != nil)
    }

    private func drawMap(into frame: inout Frame, rect: Rect, theme: MapTheme, marker: Character, colors: Bool, glyphs: GlyphSet,
                         basemap: (picture: MapPicture, projection: MapProjection)?, linesInPicture: Bool) {
        guard !rect.isEmpty else { return }
        var canvas = MapCanvas(columns: rect.width, rows: rect.height)
        let projection: MapProjection
        if let basemap {
            projection = basemap.projection
            frame.paste(basemap.picture.frame, at: (rect.x, rect.y), clip: rect)
        } else if let view = viewExtent {
            projection = MapProjection(fitting: view, dotWidth: canvas.dotWidth, dotHeight: canvas.dotHeight)
        } else {
            canvas.draw(into: &frame, at: (rect.x, rect.y), glyphs: glyphs, colors: colors)
            return
        }
        func rings(_ polygons: OverviewGeography.Polygons) -> [[(x: Double, y: Double)]] {
            polygons.flatMap { $0.map { $0.map(projection.dot) } }
        }
        func outline(_ polygons: OverviewGeography.Polygons, color: PaletteIndex) {
            for ring in rings(polygons) { canvas.polyline(ring, color: color) }
        }
        func box(_ extent: GeoExtent) -> [(x: Double, y: Double)] {
            let a = projection.dot(longitude: extent.xmin, latitude: extent.ymax)
            let b = projection.dot(longitude: extent.xmax, latitude: extent.ymin)
            // A box smaller than a dot still shows as one.
            let right = max(b.x, a.x + 1), bottom = max(b.y, a.y + 1)
            return [a, (right, a.y), (right, bottom), (a.x, bottom), a]
        }
        func outline(box corners: [(x: Double, y: Double)], color: PaletteIndex) {
            canvas.polyline(corners, color: color)
        }

        let regional = viewExtent.map(geography.isRegional) ?? true
        if basemap == nil {
            canvas.fill(from: (0, 0), to: (Double(canvas.dotWidth), Double(canvas.dotHeight)), color: theme.water)
            if regional {
                canvas.fill(rings: rings(geography.neighbours), color: theme.neighbourLand)
                canvas.fill(rings: rings(geography.land), color: theme.land)
                outline(geography.neighbours, color: theme.neighbourBorder)
                outline(geography.subdivisions, color: theme.countyBorder)
                outline(geography.land, color: theme.coast)
            } else {
                canvas.fill(rings: rings(geography.world), color: theme.land)
                outline(geography.world, color: theme.coast)
            }
        }
        if !linesInPicture {
            for (extent, color) in boxes(theme: theme) { outline(box: box(extent), color: color) }
        }
        let chosen = selected.flatMap { areas.indices.contains($0) ? $0 : nil }
        canvas.draw(into: &frame, at: (rect.x, rect.y), glyphs: glyphs, colors: colors, overlay: basemap != nil)

        // Then every name in one pass: the selected area's first, the pins', the basemap's or the cities'.
        var names = basemap?.picture.names ?? LabelPass()
        let size = (columns: rect.width, rows: rect.height)
        if basemap == nil, !regional { names.labels += cityNames(projection: projection, size: size, color: theme.cityName, glyphs: glyphs) }
        for pin in pins {
            names.mark(pin.point, glyph: glyphs == .unicode ? "⚑" : "P", label: pin.title, rank: .pin, color: theme.pin,
                       projection: projection, size: size)
        }
        if let selected = chosen {
            // Its mark at its centre, and its name beside its box (also in the caption bar).
            let corners = box(areas[selected].extent)
            let middle = (x: (corners[0].x + corners[2].x) / 4, y: (corners[0].y + corners[2].y) / 8)
            if middle.x.isFinite, middle.y.isFinite, abs(middle.x) < 1e6, abs(middle.y) < 1e6 {
                names.marks.append(MapMark(column: Int(middle.x), row: Int(middle.y), glyph: marker, color: theme.selectedArea))
            }
            if let label = label(areas[selected].title, besideBox: corners, color: theme.selectedArea) { names.labels.append(label) }
        }
        // This device's mark last: over the selected area's mark in the same cell.
        here?.mark(into: &names, ascii: glyphs != .unicode, theme: theme, projection: projection, size: size)
        names.draw(into: &frame, rect: rect, colors: colors)
    }

    /// The cities, each a dot and its name to the right, with a row free above and below it so the
    /// outline shows.
    private func cityNames(projection: MapProjection, size: (columns: Int, rows: Int), color: PaletteIndex, glyphs: GlyphSet) -> [MapLabel] {
        geography.cities.compactMap { city in
            guard let (column, row) = projection.cell(city.point) else { return nil }
            let text = (glyphs == .unicode ? "•" : "*") + DisplayWidth.truncated(city.name, to: 16)
            return MapLabel(text: text, spots: [MapLabel.Spot(column: column, row: row)], rank: .map(0), color: color, clearance: 1)
        }
    }

    /// `title` on the row of the box's top edge, just right of it, else just left of it.
    private func label(_ title: String, besideBox corners: [(x: Double, y: Double)], color: PaletteIndex) -> MapLabel? {
        let text = DisplayWidth.truncated(title, to: 24)
        let width = DisplayWidth.of(text)
        // Dots are two columns and four rows to a cell.
        guard corners.allSatisfy({ $0.x.isFinite && $0.y.isFinite && abs($0.x) < 1e6 && abs($0.y) < 1e6 }), width > 0 else { return nil }
        let top = Int(corners[0].y / 4), left = Int(corners[0].x / 2), right = Int(corners[2].x / 2)
        return MapLabel(text: text, spots: [MapLabel.Spot(column: right + 1, row: top), MapLabel.Spot(column: left - 2 - width, row: top)],
                        rank: .selected, color: color, bold: true, padded: true)
    }
}

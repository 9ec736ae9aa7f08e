import MapbookCore

/// The geography drawn under the overview when no tiles are at hand, projected once.
public struct OverviewGeography: Sendable {
    /// Polygons (each a list of rings), in Web Mercator.
    public typealias Polygons = [[[MercatorPoint]]]

    public let neighbours: Polygons
    public let land: Polygons
    public let subdivisions: Polygons
    /// The extent of `land`, for maps that have no extent of their own.
    public let landExtent: GeoExtent?

    /// `land` is filled and outlined, `subdivisions` (counties) outlined, `neighbours` drawn muted.
    public init(land: [GeoFeature], subdivisions: [GeoFeature] = [], neighbours: [GeoFeature] = []) {
        func polygons(_ features: [GeoFeature]) -> Polygons {
            features.flatMap { feature -> Polygons in
                guard case .polygons(let polygons) = feature.geometry else { return [] }
                return polygons.map { $0.map { $0.map(MercatorPoint.init) } }
            }
        }
        self.land = polygons(land)
        self.subdivisions = polygons(subdivisions)
        self.neighbours = polygons(neighbours)
        landExtent = land.compactMap(\.geometry.extent).union
    }

    public static let empty = OverviewGeography(land: [])
}

/// One map area as the overview shows it.
public struct OverviewArea: Sendable, Equatable {
    public var title: String
    public var extent: GeoExtent

    public init(title: String, extent: GeoExtent) { self.title = title; self.extent = extent }
}

/// The overview pane's map: the geography, the web map's extent, every area's extent outlined and
/// the selected one filled, emphasised and labelled. The view fits the web map and all its areas,
/// so the selection is always in view.
public struct OverviewMap: Sendable {
    public var geography: OverviewGeography
    public var webMapExtent: GeoExtent?
    public var areas: [OverviewArea]
    public var selected: Int?

    public init(geography: OverviewGeography, webMapExtent: GeoExtent?, areas: [OverviewArea], selected: Int?) {
        self.geography = geography; self.webMapExtent = webMapExtent; self.areas = areas; self.selected = selected
    }

    /// What the view must show: the web map and its areas, else the land.
    public var viewExtent: GeoExtent? {
        let parts = (webMapExtent.map { [$0] } ?? []) + areas.map(\.extent)
        return parts.union ?? geography.landExtent
    }

    public func draw(into frame: inout Frame, rect: Rect, theme: MapTheme = MapTheme(), glyphs: GlyphSet, colors: Bool) {
        guard !rect.isEmpty else { return }
        var canvas = MapCanvas(columns: rect.width, rows: rect.height)
        guard let view = viewExtent else {
            canvas.draw(into: &frame, at: (rect.x, rect.y), glyphs: glyphs, colors: colors)
            return
        }
        let projection = MapProjection(fitting: view, dotWidth: canvas.dotWidth, dotHeight: canvas.dotHeight)
        func rings(_ polygons: OverviewGeography.Polygons) -> [[(x: Double, y: Double)]] {
            polygons.flatMap { $0.map { $0.map(projection.dot) } }
        }
        func outline(_ polygons: OverviewGeography.Polygons, color: PaletteIndex) {
            for ring in rings(polygons) where ring.count > 1 {
                for i in 1..<ring.count { canvas.line(from: ring[i - 1], to: ring[i], color: color) }
            }
        }
        func box(_ extent: GeoExtent) -> [(x: Double, y: Double)] {
            let a = projection.dot(longitude: extent.xmin, latitude: extent.ymax)
            let b = projection.dot(longitude: extent.xmax, latitude: extent.ymin)
            // A box smaller than a dot still shows as one.
            let right = max(b.x, a.x + 1), bottom = max(b.y, a.y + 1)
            return [a, (right, a.y), (right, bottom), (a.x, bottom), a]
        }
        func outline(box corners: [(x: Double, y: Double)], color: PaletteIndex, emphasized: Bool = false) {
            for i in 1..<corners.count { canvas.line(from: corners[i - 1], to: corners[i], color: color, emphasized: emphasized) }
        }

        canvas.fill(from: (0, 0), to: (Double(canvas.dotWidth), Double(canvas.dotHeight)), color: theme.water)
        canvas.fill(rings: rings(geography.neighbours), color: theme.neighbourLand)
        canvas.fill(rings: rings(geography.land), color: theme.land)
        let selectedBox = selected.flatMap { areas.indices.contains($0) ? box(areas[$0].extent) : nil }
        if let selectedBox { canvas.fill(rings: [Array(selectedBox.dropLast())], color: theme.selectedFill) }
        outline(geography.neighbours, color: theme.neighbourBorder)
        outline(geography.subdivisions, color: theme.countyBorder)
        outline(geography.land, color: theme.coast)
        if let webMapExtent { outline(box: box(webMapExtent), color: theme.webMapExtent) }
        for (index, area) in areas.enumerated() where index != selected { outline(box: box(area.extent), color: theme.area) }
        if let selectedBox { outline(box: selectedBox, color: theme.selectedArea, emphasized: true) }
        canvas.draw(into: &frame, at: (rect.x, rect.y), glyphs: glyphs, colors: colors)

        if let selected, let selectedBox {
            label(areas[selected].title, box: selectedBox, in: rect, frame: &frame,
                  style: colors ? CellStyle(foreground: theme.labelText, background: theme.selectedArea, bold: true)
                                : CellStyle(bold: true, reverse: true))
        }
    }

    /// The title just above the box (below it when there is no room), centred on it, inside `rect`.
    private func label(_ title: String, box: [(x: Double, y: Double)], in rect: Rect, frame: inout Frame, style: CellStyle) {
        let text = DisplayWidth.truncated(" \(title) ", to: rect.width)
        let width = DisplayWidth.of(text)
        let top = Int(box[0].y / 4), bottom = Int(box[2].y / 4)
        let row = top - 1 >= 0 ? top - 1 : min(bottom + 1, rect.height - 1)
        let centre = Int((box[0].x + box[1].x) / 4)
        let column = min(max(centre - width / 2, 0), max(rect.width - width, 0))
        frame.put(text, x: rect.x + column, y: rect.y + row, style: style, limit: rect.maxX)
    }
}

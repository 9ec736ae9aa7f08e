import MapbookCore
import TileFormats
import TerminalCanvas

/// A name a symbol layer finds in a tile, where it goes in dots from the tile's top left corner.
/// Worked out once for a tile at a style layer and scale (`PreparedLayer.names`): a pan asks a
/// dense style for the same names at every step, and finding them anew was most of its drawing.
struct TileName: Sendable {
    /// The feature it names, by index in its layer: whether it shows is its box's to say.
    let feature: Int
    let text: String
    /// A point's name starts just right of it; a line's or an area's is centred on the spot.
    let besidePoint: Bool
    let x: Double, y: Double
    let color: PaletteIndex

    /// What the names depend on besides the tile and the style layer: the style, the zoom it is
    /// read at, the tile's dots a unit and the dots a cell (a line's name needs a stretch its length).
    struct Scale: Hashable, Sendable {
        let style: UInt64, zoom: Double, dots: Double, cellX: Double, cellY: Double

        init(style: UInt64, zoom: Double, dots: Double, dotsPerCell: (x: Double, y: Double)) {
            self.style = style; self.zoom = zoom; self.dots = dots
            (cellX, cellY) = dotsPerCell
        }
    }
}

/// Where names go: along a line's longest straight stretch, beside a point, in an area's middle
/// (`LabelPass` places them).
extension MapComposer {
    /// A symbol layer's names in one tile that show on the surface, ranked `order`: the tile's
    /// names (found once, `TileName`) moved to where the view puts the tile. Every name in view
    /// is offered, also where a pan keeps the pixels: names are placed anew over each picture.
    static func placeNames<Surface: MapSurface>(_ source: PreparedLayer, at place: TilePlace, style: MapStyle, layer: Int, with painter: LayerPainter,
                                                order: Int, surface: Surface, labels: inout [MapLabel]) -> Int {
        let scale = TileName.Scale(style: style.id, zoom: painter.zoom, dots: place.k, dotsPerCell: surface.dotsPerCell)
        let names = source.names(scale, layer: layer) { tileNames(source, with: painter, filter: style.filters[layer], scale: place.k, dotsPerCell: surface.dotsPerCell) }
        var placed = 0
        for name in names where place.shows(place.box(source.bounds[name.feature]), on: surface) {
            let d = (x: place.x + name.x, y: place.y + name.y)
            guard d.x >= 0, d.y >= 0, d.x < Double(surface.dotWidth), d.y < Double(surface.dotHeight) else { continue }
            let (column, row) = surface.cell(d.x, d.y)
            labels.append(name.besidePoint
                ? MapLabel(text: name.text, spots: [MapLabel.Spot(column: column + 1, row: row)], rank: .map(order), color: name.color, bold: true)
                : .centred(column: column, row: row, text: name.text, rank: .map(order), color: name.color))
            placed += 1
        }
        return placed
    }

    /// Every name a symbol layer finds in a tile's layer, placed at `scale` dots a tile unit from its corner.
    private static func tileNames(_ source: PreparedLayer, with painter: LayerPainter, filter: FeatureFilter, scale k: Double,
                                  dotsPerCell: (x: Double, y: Double)) -> [TileName] {
        let filter = filter.bound(to: source)
        if case .constant(false) = filter { return [] }
        let layer = source.layer
        func dot(_ p: MVTPoint) -> (x: Double, y: Double) { (Double(p.x) * k, Double(p.y) * k) }
        var names: [TileName] = []
        for index in layer.features.indices {
            guard layer.features[index].geometryError == nil,
                  filter.passes(FeatureFilter.Feature(type: layer.features[index].type, id: layer.features[index].id, tags: layer.features[index].tags),
                                in: source, zoom: painter.zoom) else { continue }
            let feature = layer.features[index]
            let context = FeatureContext(zoom: painter.zoom, feature: feature, in: source)
            guard let text = painter.label(context) else { continue }
            let spot: (x: Double, y: Double)
            if feature.type == .lineString {
                // A road's or river's name lies along it where a stretch of it runs level for the name's length.
                guard let along = lineLabelAnchor(feature.geometry, dot: dot, cells: DisplayWidth.of(text), dotsPerCell: dotsPerCell) else { continue }
                spot = along
            } else {
                guard let anchor = labelAnchor(feature.geometry, type: feature.type) else { continue }
                spot = dot(anchor)
            }
            let color = painter.color("text-color", opacity: "text-opacity", context) ?? StyleColor(r: 0, g: 0, b: 0)
            names.append(TileName(feature: index, text: text, besidePoint: feature.type == .point, x: spot.x, y: spot.y, color: color.paletteIndex))
        }
        return names
    }
    /// Where a line's name goes, in dots: the middle of its longest stretch that stays within a row
    /// and a half of text (six dots) and runs at least `cells` across, so the name lies along it;
    /// where none does, beside its middle vertex.
    static func lineLabelAnchor(_ geometry: MVTGeometry, dot: (MVTPoint) -> (x: Double, y: Double), cells: Int,
                                dotsPerCell: (x: Double, y: Double)) -> (x: Double, y: Double)? {
        let needed = Double(cells) * dotsPerCell.x, level = dotsPerCell.y * 1.5
        var best: (length: Double, x: Double, y: Double)?
        var start = 0
        let ends = geometry.partEnds.isEmpty ? [geometry.points.count] : geometry.partEnds
        for end in ends where end <= geometry.points.count && end > start {
            let part = geometry.points[start..<end].map(dot)
            start = end
            var i = 0
            while i < part.count - 1 {
                var minY = part[i].y, maxY = part[i].y, minX = part[i].x, maxX = part[i].x
                var j = i + 1
                while j < part.count {
                    let p = part[j]
                    guard max(maxY, p.y) - min(minY, p.y) <= level else { break }
                    minY = min(minY, p.y); maxY = max(maxY, p.y); minX = min(minX, p.x); maxX = max(maxX, p.x)
                    j += 1
                }
                let length = maxX - minX
                if length >= needed, length > (best?.length ?? 0) { best = (length, (minX + maxX) / 2, (minY + maxY) / 2) }
                i = max(j - 1, i + 1)
            }
        }
        if let best { return (best.x, best.y) }
        let end = geometry.partEnds.first.map { min($0, geometry.points.count) } ?? geometry.points.count
        return end > 0 ? dot(geometry.points[end / 2]) : nil
    }

    /// Where a label goes: the point; the middle of a polygon's box (lines: `lineLabelAnchor`).
    static func labelAnchor(_ geometry: MVTGeometry, type: MVTGeometryType) -> MVTPoint? {
        let points = geometry.points
        guard !points.isEmpty else { return nil }
        switch type {
        case .point: return points[0]
        default:
            let end = geometry.partEnds.first.map { min($0, points.count) } ?? points.count
            let ring = points[0..<max(end, 1)]
            let xs = ring.map { Int64($0.x) }, ys = ring.map { Int64($0.y) }
            return MVTPoint(x: Int32(clamping: (xs.min()! + xs.max()!) / 2), y: Int32(clamping: (ys.min()! + ys.max()!) / 2))
        }
    }
}

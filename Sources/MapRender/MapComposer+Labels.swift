import MapbookCore
import TileFormats
import TerminalCanvas

/// Where names go: along a line's longest straight stretch, beside a point, in an area's middle
/// (`LabelPass` places them).
extension MapComposer {
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

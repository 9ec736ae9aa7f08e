import MapbookCore
import TileFormats
import TerminalCanvas

/// Where names go: along a line's longest straight stretch or beside a point, placed so that none
/// overlaps another, and the attribution in the corner.
extension MapComposer {
    /// Where a line's name goes, in dots: the middle of its longest stretch that stays within a row
    /// and a half of text (six dots) and runs at least `cells` across, so the name lies along it;
    /// where none does, beside its middle vertex.
    static func lineLabelAnchor(_ geometry: MVTGeometry, dot: (MVTPoint) -> (x: Double, y: Double), cells: Int) -> (x: Double, y: Double)? {
        let needed = Double(cells) * 2
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
                    guard max(maxY, p.y) - min(minY, p.y) <= 6 else { break }
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

    // MARK: Labels

    struct LabelCandidate {
        var text: String
        var column: Int, row: Int
        var order: Int
        var color: PaletteIndex
        var isPoint: Bool
    }

    /// Places labels, later style layers first (as Mapbox GL gives them priority), each only where
    /// its cells and a one-cell margin are free and no label of the same text sits within a few
    /// rows. The occupancy grid is the spatial index: one lookup per cell.
    static func place(_ candidates: [LabelCandidate], into frame: inout Frame, rect: Rect, colors: Bool, reserved: Set<Int> = []) -> Int {
        var occupied = [Bool](repeating: false, count: rect.width * rect.height)
        // Markers' cells: a label may sit beside a marker, never on it.
        for cell in reserved where cell < occupied.count { occupied[cell] = true }
        var placedTexts: [String: [(Int, Int)]] = [:]
        var count = 0
        let ordered = candidates.enumerated().sorted { a, b in
            a.element.order != b.element.order ? a.element.order > b.element.order : a.offset < b.offset
        }.map(\.element)
        for label in ordered {
            let width = DisplayWidth.of(label.text)
            guard width > 0, width + 2 <= rect.width else { continue }
            // Points take the text to their right of a marker; lines and areas centre it.
            let x = label.isPoint ? label.column + 1 : label.column - width / 2
            let y = label.row
            guard x >= 0, x + width <= rect.width, y >= 0, y < rect.height - 1 else { continue }
            let near = placedTexts[label.text, default: []].contains { abs($0.0 - x) < 24 && abs($0.1 - y) < 6 }
            guard !near else { continue }
            var free = true
            for cx in max(x - 1, 0)..<min(x + width + 1, rect.width) where occupied[y * rect.width + cx] {
                free = false
                break
            }
            guard free else { continue }
            for cx in max(x - 1, 0)..<min(x + width + 1, rect.width) {
                occupied[y * rect.width + cx] = true
            }
            let background = frame[rect.x + x, rect.y + y].style.background
            frame.put(label.text, x: rect.x + x, y: rect.y + y,
                      style: CellStyle(foreground: colors ? label.color : nil, background: background, bold: label.isPoint),
                      limit: rect.maxX)
            placedTexts[label.text, default: []].append((x, y))
            count += 1
        }
        return count
    }

    static func drawAttribution(_ text: String?, into frame: inout Frame, rect: Rect, colors: Bool) {
        guard let text, !text.isEmpty, rect.height > 2 else { return }
        let shown = DisplayWidth.truncated(text, to: max(rect.width - 2, 0))
        let width = DisplayWidth.of(shown)
        let y = rect.maxY - 1
        frame.put(shown, x: rect.maxX - width, y: y,
                  style: CellStyle(foreground: colors ? 240 : nil, background: colors ? 255 : nil, dim: !colors), limit: rect.maxX)
    }
}

import Foundation
import MapbookCore
import Geometry

/// A tile address in the web convention: zoom, column (x), row (y, from the top).
public struct TileKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var z: Int, x: Int, y: Int

    public init(z: Int, x: Int, y: Int) { self.z = z; self.x = x; self.y = y }

    public static func < (a: TileKey, b: TileKey) -> Bool { (a.z, a.y, a.x) < (b.z, b.y, b.x) }
    public var description: String { "\(z)/\(x)/\(y)" }
}

/// Cuts longitude/latitude features into Mapbox vector tiles on the Web Mercator grid: projects,
/// simplifies per zoom (Douglas–Peucker, below a quarter pixel), clips to each tile plus a buffer,
/// snaps to the tile's integer grid and orients rings as the spec wants. Output depends only on the
/// input, so packages built from it are reproducible.
public struct VectorTiler: Sendable {
    public struct Layer: Sendable {
        public var name: String
        public var features: [GeoFeature]
        public var zooms: ClosedRange<Int>

        public init(name: String, features: [GeoFeature], zooms: ClosedRange<Int>) {
            self.name = name; self.features = features; self.zooms = zooms
        }
    }

    /// Tiles are made only where they meet this extent (all of the world when nil).
    public var bounds: GeoExtent?

    public var extent: Int32 = 4096
    /// How far past its edges a tile keeps geometry, in tile units, so strokes join across tiles.
    public var buffer: Double = 64
    /// Douglas–Peucker tolerance in tile units (4096 units = 512 px: 2 units is a quarter pixel).
    public var tolerance: Double = 2

    public init() {}

    public func tiles(for layers: [Layer]) -> [TileKey: MVTTile] {
        var builders: [TileKey: [MVTLayerBuilder]] = [:]
        let window = bounds.map { b in
            (ProjectedFeature.project(GeoPoint(longitude: b.xmin, latitude: b.ymax)),
             ProjectedFeature.project(GeoPoint(longitude: b.xmax, latitude: b.ymin)))
        }
        for (layerIndex, layer) in layers.enumerated() {
            let projected = layer.features.map(ProjectedFeature.init)
            for zoom in layer.zooms {
                for feature in projected {
                    for (key, type, geometry) in cut(feature, zoom: zoom, window: window) {
                        // Mutated in place: copying a tile's builders per feature would be quadratic.
                        builders[key, default: layers.map { MVTLayerBuilder(name: $0.name, extent: Int(extent)) }][layerIndex]
                            .add(id: feature.source.id, type: type, geometry: geometry,
                                 properties: feature.properties)
                    }
                }
            }
        }
        return builders.mapValues { list in MVTTile(layers: list.map(\.layer).filter { !$0.features.isEmpty }) }
    }

    static func mvtProperty(_ property: (key: String, value: JSONValue)) -> (key: String, value: MVTValue)? {
        switch property.value {
        case .string(let s): return (property.key, .string(s))
        case .bool(let b): return (property.key, .bool(b))
        case .number(let n) where n == n.rounded() && abs(n) < 9e15: return (property.key, .int(Int64(n)))
        case .number(let n): return (property.key, .double(n))
        default: return nil
        }
    }

    /// A feature's parts in normalised Web Mercator (0…1, y down), projected once for every zoom.
    struct ProjectedFeature {
        var source: GeoFeature
        var properties: [(key: String, value: MVTValue)]
        var type: MVTGeometryType
        /// Polygons: parts grouped per polygon (outer ring first). Lines and points: one group each.
        var groups: [[[Vertex]]]
        /// Each group's bounds, so a tile skips the islands of a multipolygon that lie elsewhere.
        var groupBounds: [Box]
        var bounds: Box

        init(_ feature: GeoFeature) {
            source = feature
            properties = feature.properties.compactMap(VectorTiler.mvtProperty)
            switch feature.geometry {
            case .points(let points): type = .point; groups = [[points.map(Self.project)]]
            case .lines(let lines): type = .lineString; groups = lines.map { [$0.map(Self.project)] }
            case .polygons(let polygons): type = .polygon; groups = polygons.map { $0.map { $0.map(Self.project) } }
            }
            groupBounds = groups.map { Box($0.joined()) }
            bounds = Box(groups.joined().joined())
        }

        static func project(_ p: GeoPoint) -> Vertex {
            let m = WebMercator.projected(longitude: p.longitude, latitude: p.latitude)
            let span = 2 * WebMercator.originShift
            return Vertex(x: (m.x + WebMercator.originShift) / span, y: (WebMercator.originShift - m.y) / span)
        }
    }

    /// An axis-aligned box in normalised Web Mercator; empty (min > max) when made from no vertices.
    struct Box {
        var minX = 1.0, minY = 1.0, maxX = 0.0, maxY = 0.0

        init<S: Sequence>(_ vertices: S) where S.Element == Vertex {
            for v in vertices {
                minX = min(minX, v.x); maxX = max(maxX, v.x); minY = min(minY, v.y); maxY = max(maxY, v.y)
            }
        }

        var isEmpty: Bool { minX > maxX }

        func intersects(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool {
            !isEmpty && self.minX <= maxX && self.maxX >= minX && self.minY <= maxY && self.maxY >= minY
        }
    }

    struct Vertex: Equatable { var x: Double, y: Double }

    /// The feature's geometry in every tile it touches at `zoom` (within `window`, when given).
    func cut(_ feature: ProjectedFeature, zoom: Int, window: (Vertex, Vertex)? = nil) -> [(TileKey, MVTGeometryType, MVTGeometry)] {
        guard !feature.bounds.isEmpty else { return [] }
        let n = 1 << zoom
        let scale = Double(n) * Double(extent)
        let margin = feature.type == .point ? 0 : buffer / Double(extent)
        func tileRange(_ lo: Double, _ hi: Double, _ windowLo: Double?, _ windowHi: Double?) -> ClosedRange<Int>? {
            let first = ((max(lo, windowLo ?? lo) * Double(n)) - margin).clampedInt(in: 0...n, rounding: .down)
            let last = ((min(hi, windowHi ?? hi) * Double(n)) + margin).clampedInt(in: -1...n - 1, rounding: .down)
            return first <= last ? first...last : nil
        }
        guard let rows = tileRange(feature.bounds.minY, feature.bounds.maxY, window?.0.y, window?.1.y),
              let columns = tileRange(feature.bounds.minX, feature.bounds.maxX, window?.0.x, window?.1.x) else { return [] }
        // Simplify once per zoom, in that zoom's tile units.
        let groups = feature.groups.map { parts in
            parts.map { part in
                let scaled = part.map { Vertex(x: $0.x * scale, y: $0.y * scale) }
                return feature.type == .point ? scaled : simplify(scaled, closed: feature.type == .polygon)
            }
        }
        var result: [(TileKey, MVTGeometryType, MVTGeometry)] = []
        for y in rows {
            for x in columns {
                let origin = Vertex(x: Double(x) * Double(extent), y: Double(y) * Double(extent))
                // Only the groups whose bounds meet this tile and its buffer.
                let lo = (Double(x) - margin) / Double(n), hi = (Double(x + 1) + margin) / Double(n)
                let top = (Double(y) - margin) / Double(n), bottom = (Double(y + 1) + margin) / Double(n)
                let near = groups.indices.filter {
                    feature.groupBounds[$0].intersects(minX: lo, minY: top, maxX: hi, maxY: bottom)
                }
                guard !near.isEmpty else { continue }
                let geometry = clip(near.map { groups[$0] }, type: feature.type, origin: origin)
                if !geometry.partEnds.isEmpty { result.append((TileKey(z: zoom, x: x, y: y), feature.type, geometry)) }
            }
        }
        return result
    }

    private func clip(_ groups: [[[Vertex]]], type: MVTGeometryType, origin: Vertex) -> MVTGeometry {
        var geometry = MVTGeometry()
        let lo = -buffer, hi = Double(extent) + buffer
        func local(_ v: Vertex) -> Vertex { Vertex(x: v.x - origin.x, y: v.y - origin.y) }
        func append(_ part: [MVTPoint], exterior: Bool? = nil) {
            geometry.points.append(contentsOf: part)
            geometry.partEnds.append(geometry.points.count)
            if let exterior { geometry.exteriorRings.append(exterior) }
        }
        switch type {
        case .point:
            let inside = groups.joined().joined().map(local).filter {
                $0.x >= 0 && $0.x < Double(extent) && $0.y >= 0 && $0.y < Double(extent)
            }
            if !inside.isEmpty { append(snap(inside, closed: false)) }
        case .lineString:
            for line in groups.joined() {
                for piece in clipLine(line.map(local), lo: lo, hi: hi) {
                    let snapped = snap(piece, closed: false)
                    if snapped.count >= 2 { append(snapped) }
                }
            }
        case .polygon:
            for polygon in groups {
                for (index, ring) in polygon.enumerated() {
                    var snapped = snap(clipRing(ring.map(local), lo: lo, hi: hi), closed: true)
                    guard snapped.count >= 3 else {
                        if index == 0 { break } // no outer ring here: its holes cannot be either
                        continue
                    }
                    let area = MVTGeometry.signedArea(snapped[...])
                    guard area != 0 else { if index == 0 { break } else { continue } }
                    // Outer rings clockwise on screen (positive area), holes anticlockwise.
                    if (area > 0) != (index == 0) { snapped.reverse() }
                    append(snapped, exterior: index == 0)
                }
            }
        case .unknown:
            break
        }
        return geometry
    }

    /// Rounds to the integer grid and drops repeated vertices (and, for rings, a closing repeat).
    private func snap(_ vertices: [Vertex], closed: Bool) -> [MVTPoint] {
        var out: [MVTPoint] = []
        out.reserveCapacity(vertices.count)
        for v in vertices {
            let p = MVTPoint(x: Int32(v.x.clampedInt(in: -(1 << 30)...(1 << 30))), y: Int32(v.y.clampedInt(in: -(1 << 30)...(1 << 30))))
            if out.last != p { out.append(p) }
        }
        if closed, out.count > 1, out.first == out.last { out.removeLast() }
        return out
    }

    /// Sutherland–Hodgman against the square lo…hi: exact for convex clip windows, which a tile is.
    private func clipRing(_ ring: [Vertex], lo: Double, hi: Double) -> [Vertex] {
        var points = ring
        let edges: [(inside: (Vertex) -> Bool, cross: (Vertex, Vertex) -> Vertex)] = [
            ({ $0.x >= lo }, { a, b in Vertex(x: lo, y: a.y + (b.y - a.y) * (lo - a.x) / (b.x - a.x)) }),
            ({ $0.x <= hi }, { a, b in Vertex(x: hi, y: a.y + (b.y - a.y) * (hi - a.x) / (b.x - a.x)) }),
            ({ $0.y >= lo }, { a, b in Vertex(x: a.x + (b.x - a.x) * (lo - a.y) / (b.y - a.y), y: lo) }),
            ({ $0.y <= hi }, { a, b in Vertex(x: a.x + (b.x - a.x) * (hi - a.y) / (b.y - a.y), y: hi) }),
        ]
        for edge in edges {
            guard let last = points.last else { return [] }
            var output: [Vertex] = []
            output.reserveCapacity(points.count + 4)
            var previous = last
            for current in points {
                let currentIn = edge.inside(current), previousIn = edge.inside(previous)
                if currentIn {
                    if !previousIn { output.append(edge.cross(previous, current)) }
                    output.append(current)
                } else if previousIn {
                    output.append(edge.cross(previous, current))
                }
                previous = current
            }
            points = output
        }
        return points
    }

    /// Liang–Barsky per segment; a line leaving and re-entering the window becomes several pieces.
    private func clipLine(_ line: [Vertex], lo: Double, hi: Double) -> [[Vertex]] {
        var pieces: [[Vertex]] = []
        var current: [Vertex] = []
        for (a, b) in zip(line, line.dropFirst()) {
            var t0 = 0.0, t1 = 1.0
            let dx = b.x - a.x, dy = b.y - a.y
            var visible = true
            for (p, q) in [(-dx, a.x - lo), (dx, hi - a.x), (-dy, a.y - lo), (dy, hi - a.y)] {
                if p == 0 {
                    if q < 0 { visible = false; break }
                } else {
                    let r = q / p
                    if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                    if t0 > t1 { visible = false; break }
                }
            }
            guard visible else {
                if !current.isEmpty { pieces.append(current); current = [] }
                continue
            }
            let start = Vertex(x: a.x + t0 * dx, y: a.y + t0 * dy), end = Vertex(x: a.x + t1 * dx, y: a.y + t1 * dy)
            if current.isEmpty { current = [start] } else if current.last != start { pieces.append(current); current = [start] }
            current.append(end)
            if t1 < 1 { pieces.append(current); current = [] }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    /// Douglas–Peucker with an explicit stack (no recursion depth to blow on long coastlines).
    private func simplify(_ points: [Vertex], closed: Bool) -> [Vertex] {
        guard points.count > (closed ? 4 : 2), tolerance > 0 else { return points }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true; keep[points.count - 1] = true
        // A closed ring's ends coincide; split it at its farthest vertex so both halves simplify.
        var stack: [(Int, Int)] = []
        if closed {
            let far = points.indices.max { distanceSquared(points[$0], points[0]) < distanceSquared(points[$1], points[0]) }!
            keep[far] = true
            stack = [(0, far), (far, points.count - 1)]
        } else {
            stack = [(0, points.count - 1)]
        }
        let limit = tolerance * tolerance
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var worst = 0.0, worstIndex = first
            for i in (first + 1)..<last {
                let d = segmentDistanceSquared(points[i], points[first], points[last])
                if d > worst { worst = d; worstIndex = i }
            }
            if worst > limit {
                keep[worstIndex] = true
                stack.append((first, worstIndex))
                stack.append((worstIndex, last))
            }
        }
        return points.indices.filter { keep[$0] }.map { points[$0] }
    }

    private func distanceSquared(_ a: Vertex, _ b: Vertex) -> Double {
        (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)
    }

    private func segmentDistanceSquared(_ p: Vertex, _ a: Vertex, _ b: Vertex) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let length = dx * dx + dy * dy
        guard length > 0 else { return distanceSquared(p, a) }
        let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length))
        return distanceSquared(p, Vertex(x: a.x + t * dx, y: a.y + t * dy))
    }
}

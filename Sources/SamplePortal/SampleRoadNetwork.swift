import Foundation
import Geometry
import MapbookAssets

/// The interstates of the contiguous United States as a graph (`assets/usa/highways.mbgf`: edges
/// cut at junctions, which meet at exactly equal end points), for the sample route service.
struct SampleRoadNetwork: Sendable {
    struct Edge: Sendable {
        var from: Int, to: Int
        var road: String
        var points: [GeoPoint]
        var metres: Double
        /// Driving time at the road's speed.
        var seconds: Double
    }

    /// Where a stop joins the network: the nearest point of an edge.
    struct Snap {
        var edge: Int
        /// The point on the edge, and the edge's points before it (from its start) and after it.
        var point: GeoPoint
        var before: [GeoPoint], after: [GeoPoint]
        /// How far the stop lies from the road.
        var offRoad: Double
    }

    /// A stretch of the way: a road (or `nil`, the local roads between a stop and the network).
    struct Piece {
        var road: String?
        var points: [GeoPoint]
        var metres: Double
        var seconds: Double
    }

    private(set) var nodes: [GeoPoint] = []
    private(set) var edges: [Edge] = []
    private var adjacency: [[Int]] = []

    /// Interstates' two-digit main lines at 105 km/h (65 mph), their three-digit spurs and loops at
    /// 90 km/h, and the local roads to and from a stop at 50 km/h.
    static func speed(of road: String?) -> Double {
        guard let road else { return 50 / 3.6 }
        let digits = road.filter(\.isNumber).count
        return (digits >= 3 ? 90 : 105) / 3.6
    }

    /// A stop farther than this from any interstate is not located (the sea, another continent).
    static let searchTolerance = 100_000.0

    init() {
        var index: [Int64: Int] = [:]
        func node(_ p: GeoPoint) -> Int {
            let key = Int64((p.longitude * 1e5).clampedInt()) << 32 ^ Int64((p.latitude * 1e5).clampedInt())
            if let found = index[key] { return found }
            index[key] = nodes.count
            nodes.append(p)
            adjacency.append([])
            return nodes.count - 1
        }
        for feature in (try? MapbookAssets.features(.highways)) ?? [] {
            guard case .lines(let lines) = feature.geometry, let road = feature.property("name")?.string.map(Self.roadName) else { continue }
            for line in lines where line.count >= 2 {
                let from = node(line[0]), to = node(line[line.count - 1])
                let metres = Geodesy.length(line)
                adjacency[from].append(edges.count)
                adjacency[to].append(edges.count)
                edges.append(Edge(from: from, to: to, road: road, points: line, metres: metres, seconds: metres / Self.speed(of: road)))
            }
        }
    }

    /// "I 95" as road signs write it: "I-95".
    static func roadName(_ name: String) -> String {
        name.hasPrefix("I ") ? "I-" + name.dropFirst(2) : name
    }

    /// The nearest point of the network to `point`, or nil when none is within the tolerance.
    func snap(_ point: GeoPoint) -> Snap? {
        let scale = cos(point.latitude * .pi / 180)
        var best: (edge: Int, segment: Int, t: Double, d2: Double)?
        for (e, edge) in edges.enumerated() {
            for i in 0..<(edge.points.count - 1) {
                let a = edge.points[i], b = edge.points[i + 1]
                let ax = (a.longitude - point.longitude) * scale, ay = a.latitude - point.latitude
                let dx = (b.longitude - a.longitude) * scale, dy = b.latitude - a.latitude
                let length2 = dx * dx + dy * dy
                let t = length2 > 0 ? min(max(-(ax * dx + ay * dy) / length2, 0), 1) : 0
                let x = ax + t * dx, y = ay + t * dy
                let d2 = x * x + y * y
                if d2 < best?.d2 ?? .infinity { best = (e, i, t, d2) }
            }
        }
        guard let best else { return nil }
        let points = edges[best.edge].points
        let a = points[best.segment], b = points[best.segment + 1]
        let on = GeoPoint(longitude: a.longitude + best.t * (b.longitude - a.longitude), latitude: a.latitude + best.t * (b.latitude - a.latitude))
        let offRoad = Geodesy.distance(point, on)
        guard offRoad <= Self.searchTolerance else { return nil }
        return Snap(edge: best.edge, point: on, before: Array(points[...best.segment]) + [on], after: [on] + points[(best.segment + 1)...], offRoad: offRoad)
    }

    /// The quickest way from one snapped stop to the next (with `shortest`, the shortest), as
    /// pieces of road in order; nil when no road joins them.
    func quickest(from start: Snap, to end: Snap, shortest: Bool = false) -> [Piece]? {
        // Costs are seconds, or with `shortest` metres at one metre a second.
        func speed(_ road: String?) -> Double { shortest ? 1 : Self.speed(of: road) }
        // Dijkstra from the start's two ends of its edge, each reached along part of that edge.
        let startEdge = edges[start.edge], endEdge = edges[end.edge]
        var best = [Double](repeating: .infinity, count: nodes.count)
        var via = [Int?](repeating: nil, count: nodes.count)
        var queue = MinQueue()
        let towardFrom = Geodesy.length(start.before), towardTo = Geodesy.length(start.after)
        best[startEdge.from] = towardFrom / speed(startEdge.road)
        best[startEdge.to] = min(best[startEdge.to], towardTo / speed(startEdge.road))
        queue.push(startEdge.from, best[startEdge.from]); queue.push(startEdge.to, best[startEdge.to])
        while let (node, t) = queue.pop() {
            guard t <= best[node] else { continue }
            for e in adjacency[node] {
                let edge = edges[e]
                let next = edge.from == node ? edge.to : edge.from
                let step = shortest ? edge.metres : edge.seconds
                if t + step < best[next] {
                    best[next] = t + step; via[next] = e
                    queue.push(next, best[next])
                }
            }
        }
        let endSpeed = speed(endEdge.road)
        let fromEnds = [(endEdge.from, best[endEdge.from] + Geodesy.length(end.before) / endSpeed, true),
                        (endEdge.to, best[endEdge.to] + Geodesy.length(end.after) / endSpeed, false)]
        var pieces: [Piece]
        if start.edge == end.edge {
            let direct = along(startEdge, start, end)
            pieces = [direct]
            if let nearest = fromEnds.min(by: { $0.1 < $1.1 }), nearest.1 + 1 < (shortest ? direct.metres : direct.seconds) {
                pieces = path(to: nearest.0, via: via, start: start, enteredFromStart: nearest.2, end: end)
            }
        } else {
            guard let nearest = fromEnds.min(by: { $0.1 < $1.1 }), nearest.1.isFinite else { return nil }
            pieces = path(to: nearest.0, via: via, start: start, enteredFromStart: nearest.2, end: end)
        }
        return pieces.filter { $0.points.count >= 2 && $0.metres > 0 }
    }

    /// Along one edge from one snap to the other.
    private func along(_ edge: Edge, _ start: Snap, _ end: Snap) -> Piece {
        // A snap's `before` is the edge's points up to its segment, then the snapped point.
        let s = start.before.count - 2, e = end.before.count - 2
        let between: [GeoPoint]
        if Geodesy.length(start.before) <= Geodesy.length(end.before) {
            between = s < e ? Array(edge.points[(s + 1)...e]) : []
        } else {
            between = e < s ? Array(edge.points[(e + 1)...s].reversed()) : []
        }
        return piece(edge.road, [start.point] + between + [end.point])
    }

    /// The pieces from the start's snap to `last` (a node of the end's edge), then on to the end.
    private func path(to last: Int, via: [Int?], start: Snap, enteredFromStart: Bool, end: Snap) -> [Piece] {
        var chain: [Piece] = []
        var node = last
        let startEdge = edges[start.edge]
        while let e = via[node] {
            let edge = edges[e]
            let forward = edge.to == node
            chain.append(piece(edge.road, forward ? edge.points : edge.points.reversed()))
            node = forward ? edge.from : edge.to
        }
        // `node` is now one end of the start's edge.
        let first = node == startEdge.from ? Array(start.before.reversed()) : start.after
        chain.append(piece(startEdge.road, first))
        chain.reverse()
        let endEdge = edges[end.edge]
        chain.append(piece(endEdge.road, enteredFromStart ? end.before : Array(end.after.reversed())))
        return chain
    }

    private func piece(_ road: String?, _ points: [GeoPoint]) -> Piece {
        let metres = Geodesy.length(points)
        return Piece(road: road, points: points, metres: metres, seconds: metres / Self.speed(of: road))
    }

    /// A binary heap of (node, time), smallest time first.
    private struct MinQueue {
        private var heap: [(Int, Double)] = []

        mutating func push(_ node: Int, _ time: Double) {
            guard time.isFinite else { return }
            heap.append((node, time))
            var i = heap.count - 1
            while i > 0, heap[(i - 1) / 2].1 > heap[i].1 { heap.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
        }

        mutating func pop() -> (Int, Double)? {
            guard let top = heap.first else { return nil }
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < heap.count, heap[l].1 < heap[m].1 { m = l }
                    if r < heap.count, heap[r].1 < heap[m].1 { m = r }
                    if m == i { break }
                    heap.swapAt(i, m); i = m
                }
            }
            return top
        }
    }
}

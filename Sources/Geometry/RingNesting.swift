import Foundation

extension GeoGeometry {
    /// Polygons from rings whose orientation says nothing (mobile geodatabases store outer rings
    /// counter-clockwise, Esri JSON clockwise): a ring inside an even number of others is an outer
    /// boundary, one inside an odd number a hole of the smallest ring around it.
    public static func polygons(nesting rings: [[GeoPoint]]) -> GeoGeometry {
        // Past a few thousand rings the pairwise test costs more than it tells: drawing and hit
        // tests are even-odd over all of a feature's rings, so one polygon of them all looks the same.
        guard rings.count > 1, rings.count <= 2_000 else { return .polygons(rings.isEmpty ? [] : [rings]) }
        let boxes = rings.map { GeoGeometry.points($0).extent }
        let areas = rings.map { abs(signedArea($0)) }
        // The rings around each ring (by its first vertex, which cannot lie on the edge of a ring
        // it does not cross).
        let around: [[Int]] = rings.indices.map { i in
            guard let probe = rings[i].first else { return [] }
            return rings.indices.filter { j in
                j != i && areas[j] > areas[i] && (boxes[j]?.contains(probe) ?? false) && GeoGeometry.polygons([[rings[j]]]).covers(probe)
            }
        }
        var polygons: [[[GeoPoint]]] = [], polygonOf: [Int: Int] = [:]
        for i in rings.indices where around[i].count % 2 == 0 {
            polygonOf[i] = polygons.count
            polygons.append([rings[i]])
        }
        for i in rings.indices where around[i].count % 2 == 1 {
            // The hole's outer ring is the smallest ring around it at one level up.
            let parent = around[i].filter { around[$0].count == around[i].count - 1 }.min { areas[$0] < areas[$1] }
            if let parent, let index = polygonOf[parent] { polygons[index].append(rings[i]) } else { polygons.append([rings[i]]) }
        }
        return .polygons(polygons)
    }

    static func signedArea(_ ring: [GeoPoint]) -> Double {
        guard var previous = ring.last else { return 0 }
        var sum = 0.0
        for point in ring {
            sum += (previous.longitude - point.longitude) * (previous.latitude + point.latitude)
            previous = point
        }
        return sum / 2
    }
}

import Foundation
import Testing
import Geometry
@testable import ArcGISModel

/// Esri's compressed geometry, against encodings published with public clients of the format.
@Suite struct CompressedGeometryTests {
    static let sanFrancisco = [(-122.40645857695421, 37.78272915354862), (-122.40609876765315, 37.78299901052442),
                               (-122.40597283439777, 37.78305298191958), (-122.40417378789242, 37.7844382477287)]

    @Test func theOldAndTheNewFormDecodeToTheSamePoints() throws {
        for text in ["+1m91-6fkfr+202tp+k+f+7+3+34+2d", "+0+1+0+1m91-6fkfr+202tp+k+f+7+3+34+2d"] {
            let points = try CompressedGeometry.decode(text)
            #expect(points.count == 4)
            for (point, expected) in zip(points, Self.sanFrancisco) {
                #expect(abs(point.longitude - expected.0) < 1e-4 && abs(point.latitude - expected.1) < 1e-4)
            }
        }
    }

    @Test func zAndMValuesAfterTheBarAreLeftAside() throws {
        // Projected numbers (481901, 3768566: a UTM grid) leave the map: refused, never drawn wrong.
        #expect(throws: RouteError("a step's compressed geometry leaves the map")) {
            _ = try CompressedGeometry.decode("+0+1+3+1+emjd+3j07m+3+0+0+1-3-1|+9og+0+lv4+0+lv4|+5rg+uq+r9+au+168")
        }
        let withM = try CompressedGeometry.decode("+0+1+2+1m91-6733n+1pjfe+g-e+1b-r+9-9+c-h+2-j-3-v-7-j-b-m-5-7-e-f-1a-u-6-7-4-9-3-a-1-n+1-4j|+5rg+81s+7n+i0+4f+7r+7g+ce+7n+9j+3h+7n+ib+3a+3q+45+97+1qs")
        #expect(withM.count == 17)
        #expect(abs(withM[0].longitude + 117.37020778987137) < 1e-4 && abs(withM[0].latitude - 33.96106863362418) < 1e-4)
        #expect(abs(withM[3].longitude + 117.36898443824772) < 1e-4 && abs(withM[3].latitude - 33.9601691103715) < 1e-4)
    }

    @Test func encodingRoundTripsWithinTheFactorsStep() throws {
        let points = Self.sanFrancisco.map { GeoPoint(longitude: $0.0, latitude: $0.1) }
        #expect(CompressedGeometry.encode(points) == "+1m91-6fkfr+202tp+k+f+7+3+34+2d")
        let back = try CompressedGeometry.decode(CompressedGeometry.encode(points))
        for (a, b) in zip(points, back) { #expect(abs(a.longitude - b.longitude) < 1 / 55_585.0 && abs(a.latitude - b.latitude) < 1 / 55_585.0) }
    }

    @Test func malformedTextIsRefusedWithAReason() {
        for text in ["", "+1m91-6fkfr", "+1m91-6fkfr+202tp+k", "+1m91-6fk!r+202tp", "+0+2+0+1m91-6fkfr+202tp", "+0+1+4+1m91-6fkfr+202tp",
                     "+0-6fkfr+202tp", "+1m91+" + String(repeating: "v", count: 20) + "+0", "+1-zz+1"] {
            #expect(throws: RouteError.self, "\(text)") { _ = try CompressedGeometry.decode(text) }
        }
    }
}

import Testing
@testable import TileFormats

@Suite struct MVTGeometryTests {
    @Test func pointFromTheSpec() throws {
        let g = try MVTGeometry(decoding: [9, 50, 34], type: .point)
        #expect(g.points == [MVTPoint(x: 25, y: 17)])
    }

    @Test func multiPointAndLineFromTheSpec() throws {
        let multi = try MVTGeometry(decoding: [17, 10, 14, 3, 9], type: .point)
        #expect(multi.points == [MVTPoint(x: 5, y: 7), MVTPoint(x: 3, y: 2)])
        let line = try MVTGeometry(decoding: [9, 4, 4, 18, 0, 16, 16, 0], type: .lineString)
        #expect(line.points == [MVTPoint(x: 2, y: 2), MVTPoint(x: 2, y: 10), MVTPoint(x: 10, y: 10)])
        #expect(line.partEnds == [3])
    }

    @Test func polygonWithHoleFromTheSpec() throws {
        // Spec example 4.3.5.7: a multipolygon, the second polygon with a hole.
        let commands: [UInt32] = [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0, 18, 17, 0, 15,
                                  9, 4, 13, 26, 0, 8, 8, 0, 0, 7, 15]
        let g = try MVTGeometry(decoding: commands, type: .polygon)
        #expect(g.partEnds == [4, 8, 12])
        #expect(g.exteriorRings == [true, true, false])
        #expect(g.points[4] == MVTPoint(x: 11, y: 11))
    }

    @Test(arguments: [
        ([15] as [UInt32], MVTGeometryType.polygon),            // starts with ClosePath
        ([9, 50], .point),                                      // half a coordinate pair
        ([9 | (0x1FFFFFFF << 3), 2, 2], .point),                // huge count: rejected, not allocated
        ([9, 0, 0, 18, 2, 2], .polygon),                        // ring without ClosePath
        ([9, 0, 0, 26, 2, 2, 2, 2, 2, 2, 23], .polygon),        // ClosePath count 2
        ([9, 0, 0, 18, 2, 2, 2, 2, 15], .lineString),           // a line with ClosePath
        ([17, 0, 0, 10, 2, 2], .lineString),                    // a line starting with MoveTo count 2
    ])
    func malformedGeometryIsRejected(commands: [UInt32], type: MVTGeometryType) {
        #expect(throws: MVTError.self) { try MVTGeometry(decoding: commands, type: type) }
    }

    @Test func unknownTypeHasNoGeometry() throws {
        #expect(try MVTGeometry(decoding: [9, 50, 34], type: .unknown) == .empty)
    }
}

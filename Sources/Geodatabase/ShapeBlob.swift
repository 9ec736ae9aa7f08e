import Foundation
import MapbookCore

/// A geometry column's coordinate grid: stored integers are `value ÷ scale + origin`
/// (`st_aux_spatial_reference_systems`: `falsex`, `falsey`, `xyunits`; or the feature class's
/// definition: `XOrigin`, `YOrigin`, `XYScale`, and the same for Z and M).
public struct CoordinateGrid: Sendable, Equatable {
    public var originX: Double
    public var originY: Double
    public var scale: Double
    public var originZ: Double
    public var scaleZ: Double
    public var originM: Double
    public var scaleM: Double

    public init(originX: Double, originY: Double, scale: Double, originZ: Double = 0, scaleZ: Double = 1, originM: Double = 0, scaleM: Double = 1) {
        self.originX = originX; self.originY = originY; self.scale = scale
        self.originZ = originZ; self.scaleZ = scaleZ; self.originM = originM; self.scaleM = scaleM
    }

    /// Whether shapes can be read on it: every scale positive and at most 10^12 (finer than any
    /// survey), every origin within 10^12 of zero. A file naming 0, NaN or 1e308 has no usable grid.
    public var isUsable: Bool {
        [scale, scaleZ, scaleM].allSatisfy { $0.isFinite && $0 > 0 && $0 <= 1e12 }
            && [originX, originY, originZ, originM].allSatisfy { $0.isFinite && abs($0) <= 1e12 }
    }

    func value(x: Int64, y: Int64) -> (x: Double, y: Double) {
        (Double(x) / scale + originX, Double(y) / scale + originY)
    }
}

/// A shape read from a mobile geodatabase's blob, in the layer's own coordinates.
public enum StoredShape: Sendable {
    case empty
    case point(x: Double, y: Double)
    case multipoint([(x: Double, y: Double)])
    case polyline([[(x: Double, y: Double)]])
    /// Rings as stored (counter-clockwise outer rings); which are holes is found by containment.
    case polygon([[(x: Double, y: Double)]])

    public var pointCount: Int {
        switch self {
        case .empty: 0
        case .point: 1
        case .multipoint(let points): points.count
        case .polyline(let parts), .polygon(let parts): parts.reduce(0) { $0 + $1.count }
        }
    }
}

/// What a layer says its shapes hold beyond x and y (its definition's `HasZ` and `HasM`, or the
/// type and dimension in `st_geometry_columns`), and whether they are multipoints.
public struct ShapeLayout: Sendable, Equatable {
    public var hasZ: Bool
    public var hasM: Bool
    public var isMultipoint: Bool

    public init(hasZ: Bool = false, hasM: Bool = false, isMultipoint: Bool = false) {
        self.hasZ = hasZ; self.hasM = hasM; self.isMultipoint = isMultipoint
    }

    var isPlain: Bool { !hasZ && !hasM && !isMultipoint }
}

/// A decoded shape with its points' heights (Z) and measures (M), when its layer has them and
/// the blob holds them: one value per point, in the order the shape stores its points.
public struct DecodedShape: Sendable {
    public var shape: StoredShape
    public var z: [Double]?
    public var m: [Double]?
}

/// Why a shape blob was not drawn: one sentence's ending ("…: <reason>").
public struct ShapeBlobError: Error, Equatable, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The blob breaks its own rules: skipped and counted as damaged.
        case damaged
        /// A kind of shape mapbook does not draw (curves, multipatches): named, never guessed.
        case cannotBeDrawn
    }
    public let kind: Kind
    public let reason: String

    static func damaged(_ reason: String) -> ShapeBlobError { ShapeBlobError(kind: .damaged, reason: reason) }
    static func cannotBeDrawn(_ reason: String) -> ShapeBlobError { ShapeBlobError(kind: .cannotBeDrawn, reason: reason) }
}

/// Esri's compressed shape blob as mobile geodatabases store it (the `Shape` column). Layout, as
/// read from real files (the same varint scheme as the File Geodatabase format):
///
///     0x64, SRID (3 bytes LE), point count (uint32 LE), two unsigned varints (the shape's codes),
///     [bounding box: 4 signed varints, when not a point and more than 10 points],
///     [parts − 1 and each further part's start index as a signed delta, when several parts],
///     coordinate stream length (signed varint), …, a 4-byte word 01 00 00 00, the stream.
///
/// ArcGIS Pro's polygons set flags in that word (01 10 00 04 and 01 10 00 0C in a State Plane
/// file), which change nothing the reader needs: those flags are allowed, no others.
///
/// The stream holds each point as x and y deltas from the previous one (signed varints); a dummy
/// point stands between parts. Every blob is checked against itself: the stream ends at the
/// blob's end, the marker is there, the points' envelope is the stored box, rings close.
///
/// Heights and measures: no public file has shown them, so they are read as the File Geodatabase
/// format keeps them — after every x and y, one signed varint delta per point for Z, then for M —
/// and taken only when they account for the blob's last byte exactly; a raw −1 (as in the dummy
/// point between parts) is no value. A layer whose shapes carry them in another layout is still
/// drawn, flat, from x and y that passed every check above.
public enum ShapeBlob {
    /// The shape codes this reader draws: the first code and the low nibble of the second.
    enum Shape {
        case point, polyline, polygon
    }

    /// The most points one shape may have: a coastline's worth; more is not drawn (and never allocated).
    public static let mostPoints = 1_000_000

    /// Decodes a blob of a layer without heights or measures.
    public static func decode(_ blob: [UInt8], grid: CoordinateGrid) throws -> StoredShape {
        try decode(blob, grid: grid, layout: ShapeLayout()).shape
    }

    /// Decodes a blob of a layer laid out as `layout` says; throws a `ShapeBlobError` for one that
    /// is damaged or cannot be drawn.
    public static func decode(_ blob: [UInt8], grid: CoordinateGrid, layout: ShapeLayout) throws -> DecodedShape {
        guard grid.isUsable else { throw ShapeBlobError.damaged("its coordinate grid is not usable") }
        guard blob.count >= 8 else { throw ShapeBlobError.damaged("the shape is \(blob.count) bytes, shorter than its header") }
        guard blob[0] == 0x64 else { throw ShapeBlobError.damaged("the shape does not start with Esri's marker byte") }
        let pointCount = Int(UInt32(blob[4]) | UInt32(blob[5]) << 8 | UInt32(blob[6]) << 16 | UInt32(blob[7]) << 24)
        if pointCount == 0 { return DecodedShape(shape: .empty) }
        // Each point takes at least two bytes: a count beyond that is a lie, refused before any allocation.
        guard pointCount <= (blob.count - 8) / 2 else {
            throw ShapeBlobError.damaged("the shape claims \(pointCount) points in \(blob.count) bytes")
        }
        guard pointCount <= mostPoints else {
            throw ShapeBlobError.cannotBeDrawn("a shape of \(Format.grouped(pointCount)) points, more than the \(Format.grouped(mostPoints)) mapbook draws")
        }
        var reader = VarintReader(bytes: blob, at: 8)
        let first = try reader.unsigned(), second = try reader.unsigned()
        let shape = try kind(first: first, second: second, layout: layout)
        let multipart = second & 0x40 != 0
        let header = Header(pointCount: pointCount, shape: shape, multipart: multipart, fieldsAt: reader.offset)
        guard shape == .point, pointCount > 1 else {
            return try decode(blob, header, box: shape != .point && pointCount > 10, grid: grid, layout: layout)
        }
        // Multipoints: whether they store a box no sample has shown; the one that reads is taken.
        do {
            return try decode(blob, header, box: true, grid: grid, layout: layout)
        } catch {
            return try decode(blob, header, box: false, grid: grid, layout: layout)
        }
    }

    private struct Header {
        let pointCount: Int
        let shape: Shape
        let multipart: Bool
        /// Where the fields after the two codes begin.
        let fieldsAt: Int
    }

    private static func decode(_ blob: [UInt8], _ header: Header, box hasBox: Bool, grid: CoordinateGrid, layout: ShapeLayout) throws -> DecodedShape {
        let pointCount = header.pointCount
        var reader = VarintReader(bytes: blob, at: header.fieldsAt)
        var box: [Int64]?
        if hasBox { box = try (0..<4).map { _ in try reader.signed() } }
        var starts = [0]
        if header.multipart {
            let further = try reader.signed()
            guard further >= 0, further < pointCount else { throw ShapeBlobError.damaged("the shape claims \(further + 1) parts for \(pointCount) points") }
            var start = 0
            for _ in 0..<further {
                let delta = try reader.signed()
                // A part is at least one point and the dummy point before it: indexes only go up.
                guard delta >= 2, start + Int(delta) < pointCount else { throw ShapeBlobError.damaged("its part indexes are out of order") }
                start += Int(delta)
                starts.append(start)
            }
        }
        let streamLength = try reader.signed()
        guard streamLength > 0, streamLength <= blob.count else { throw ShapeBlobError.damaged("its coordinate stream length is \(streamLength)") }
        var streamStart = blob.count - Int(streamLength), streamEnd = blob.count
        if streamStart - 4 < reader.offset || !isStreamWord(blob, at: streamStart - 4) {
            // Heights or measures kept after the stream its length counts: the marker then comes
            // after the header's own bytes.
            guard layout.hasZ || layout.hasM, let marker = marker(in: blob, from: reader.offset),
                  marker + 4 + Int(streamLength) < blob.count else {
                throw ShapeBlobError.damaged("its coordinate stream is not where its header says")
            }
            streamStart = marker + 4
            streamEnd = streamStart + Int(streamLength)
        }

        reader.offset = streamStart
        var x: Int64 = 0, y: Int64 = 0
        var raw: [(x: Int64, y: Int64)] = []
        raw.reserveCapacity(pointCount)
        for _ in 0..<pointCount {
            let (dx, overflowX) = x.addingReportingOverflow(try reader.signed())
            let (dy, overflowY) = y.addingReportingOverflow(try reader.signed())
            guard !overflowX, !overflowY else { throw ShapeBlobError.damaged("its coordinates overflow") }
            x = dx; y = dy
            raw.append((x, y))
        }
        let extra = streamEnd < blob.count ? (reader.offset == streamEnd ? streamEnd : nil) : reader.offset
        guard let extra, extra == blob.count || layout.hasZ || layout.hasM, reader.offset <= streamEnd else {
            throw ShapeBlobError.damaged("its \(pointCount) points end \(blob.count - reader.offset) bytes before the blob does")
        }

        // Parts without the dummy point before each further part.
        let ends = starts.dropFirst().map { $0 - 1 } + [pointCount]
        var ranges = zip(starts, ends).map { $0..<$1 }
        if header.shape == .polygon, !header.multipart { ranges = closedRings(raw) }
        let parts = ranges.map { raw[$0] }
        if let box {
            let real = parts.joined()
            let envelope = [real.map(\.x).min()!, real.map(\.y).min()!, real.map(\.x).max()!, real.map(\.y).max()!]
            guard envelope == box else { throw ShapeBlobError.damaged("its points lie outside its stored box") }
        }
        let scaled = parts.map { part in part.map { grid.value(x: $0.x, y: $0.y) } }
        let stored: StoredShape
        switch header.shape {
        case .point:
            stored = pointCount == 1 && !layout.isMultipoint ? .point(x: scaled[0][0].x, y: scaled[0][0].y) : .multipoint(Array(scaled.joined()))
        case .polyline:
            guard parts.allSatisfy({ $0.count >= 2 }) else { throw ShapeBlobError.damaged("a line has a part of one point") }
            stored = .polyline(scaled)
        case .polygon:
            guard parts.allSatisfy({ $0.count >= 4 && $0.first! == $0.last! }) else { throw ShapeBlobError.damaged("a ring does not close") }
            stored = .polygon(scaled)
        }
        var decoded = DecodedShape(shape: stored)
        if let (z, m) = measures(blob[extra...], count: pointCount, layout: layout) {
            func kept(_ values: [Int64]?, origin: Double, scale: Double) -> [Double]? {
                guard let values, values.contains(where: { $0 != -1 }) else { return nil }
                let inParts: [Int64] = ranges.flatMap { values[$0] }
                return inParts.map { (raw: Int64) -> Double in raw == -1 ? Double.nan : Double(raw) / scale + origin }
            }
            decoded.z = kept(z, origin: grid.originZ, scale: grid.scaleZ)
            decoded.m = kept(m, origin: grid.originM, scale: grid.scaleM)
        }
        return decoded
    }

    /// A polygon stored as one part that holds several rings (ArcGIS Pro writes holes and islands
    /// so, with no part indexes): each ring ends where it comes back to its first point. Nothing
    /// left over; a ring that does not close is caught by the check on rings.
    private static func closedRings(_ points: [(x: Int64, y: Int64)]) -> [Range<Int>] {
        var rings: [Range<Int>] = [], start = 0
        while start < points.count {
            let first = points[start]
            guard let end = points[(start + 1)...].firstIndex(where: { $0 == first }) else { return rings + [start..<points.count] }
            rings.append(start..<end + 1)
            start = end + 1
        }
        return rings
    }

    /// Whether the 4 bytes at `index` are the word before the stream: 1, with no flags but those seen.
    private static func isStreamWord(_ blob: [UInt8], at index: Int) -> Bool {
        guard index >= 0, index + 4 <= blob.count else { return false }
        let word = UInt32(blob[index]) | UInt32(blob[index + 1]) << 8 | UInt32(blob[index + 2]) << 16 | UInt32(blob[index + 3]) << 24
        return word & ~knownStreamFlags == 1
    }

    private static let knownStreamFlags: UInt32 = 0x0C00_1000

    /// The first stream marker (01 00 00 00) within 64 bytes of `offset`.
    private static func marker(in blob: [UInt8], from offset: Int) -> Int? {
        var index = offset
        while index + 4 <= min(blob.count, offset + 68) {
            if blob[index ..< index + 4] == [1, 0, 0, 0] { return index }
            index += 1
        }
        return nil
    }

    /// Raw heights and measures from the bytes after the points: one signed varint delta per point
    /// for each the layout has (Z first), ending at the blob's last byte. Nil when the bytes are
    /// not that (the shape is then drawn without them).
    private static func measures(_ bytes: ArraySlice<UInt8>, count: Int, layout: ShapeLayout) -> (z: [Int64]?, m: [Int64]?)? {
        let dimensions = (layout.hasZ ? 1 : 0) + (layout.hasM ? 1 : 0)
        guard dimensions > 0, !bytes.isEmpty else { return nil }
        var reader = VarintReader(bytes: Array(bytes), at: 0)
        func deltas() throws -> [Int64] {
            var value: Int64 = 0
            return try (0..<count).map { _ in
                let (next, overflow) = value.addingReportingOverflow(try reader.signed())
                guard !overflow else { throw ShapeBlobError.damaged("its heights overflow") }
                value = next
                return next
            }
        }
        if let columns = try? (0..<dimensions).map({ _ in try deltas() }), reader.offset == bytes.count {
            return (layout.hasZ ? columns[0] : nil, layout.hasM ? columns[dimensions - 1] : nil)
        }
        return nil
    }

    /// The shape the two codes name. Seen in real files: `04 01` a point, `14 04`/`14 44`/`14 42`
    /// a polyline, `18 08`/`18 48` a polygon (`0x40`: several parts). A layer that says its shapes
    /// carry heights or measures, or are multipoints, is read by the second code's low nibble
    /// alone (the codes' flags for those are not known); anything else is named, not guessed at.
    static func kind(first: UInt64, second: UInt64, layout: ShapeLayout) throws -> Shape {
        switch (first, second & 0x0F) {
        case (0x04, 0x01): return .point
        case (0x14, 0x02), (0x14, 0x04): return .polyline
        case (0x18, 0x08): return .polygon
        case (_, 0x01) where !layout.isPlain: return .point
        case (_, 0x02) where !layout.isPlain, (_, 0x04) where !layout.isPlain: return layout.isMultipoint ? .point : .polyline
        case (_, 0x08) where !layout.isPlain: return .polygon
        default:
            throw ShapeBlobError.cannotBeDrawn("a shape that is not a point, line or polygon (a curve or a 3D surface)")
        }
    }
}

/// Reads the varints of a shape blob, never past its end and never more than 64 bits.
struct VarintReader {
    let bytes: [UInt8]
    var offset: Int

    init(bytes: [UInt8], at offset: Int) { self.bytes = bytes; self.offset = offset }

    /// Seven bits a byte, low first; the top bit says another byte follows.
    mutating func unsigned() throws -> UInt64 {
        var value: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw ShapeBlobError.damaged("the shape is cut short") }
            let byte = bytes[offset]; offset += 1
            guard shift <= 56 else { throw ShapeBlobError.damaged("a number in the shape is too long") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// The first byte carries the sign (0x40) and six value bits; later bytes seven each.
    mutating func signed() throws -> Int64 {
        guard offset < bytes.count else { throw ShapeBlobError.damaged("the shape is cut short") }
        let first = bytes[offset]; offset += 1
        var value = UInt64(first & 0x3F), shift: UInt64 = 6
        var more = first & 0x80 != 0
        while more {
            guard offset < bytes.count else { throw ShapeBlobError.damaged("the shape is cut short") }
            let byte = bytes[offset]; offset += 1
            guard shift <= 55 else { throw ShapeBlobError.damaged("a number in the shape is too long") }
            value |= UInt64(byte & 0x7F) << shift
            more = byte & 0x80 != 0
            shift += 7
        }
        guard value <= UInt64(Int64.max) else { throw ShapeBlobError.damaged("a number in the shape is too long") }
        return first & 0x40 != 0 ? -Int64(value) : Int64(value)
    }
}

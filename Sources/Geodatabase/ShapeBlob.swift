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
    case polyline([[(x: Double, y: Double)]])
    /// Rings as stored (counter-clockwise outer rings); which are holes is found by containment.
    case polygon([[(x: Double, y: Double)]])

    public var pointCount: Int {
        switch self {
        case .empty: 0
        case .point: 1
        case .polyline(let parts), .polygon(let parts): parts.reduce(0) { $0 + $1.count }
        }
    }
}

/// Why a shape blob was not drawn: one sentence's ending ("…: <reason>").
public struct ShapeBlobError: Error, Equatable, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The blob breaks its own rules: skipped and counted as damaged.
        case damaged
        /// A kind of shape mapbook does not draw (Z, M, curves, multipoints): named, never guessed.
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
///     coordinate stream length (signed varint), …, 01 00 00 00, the stream.
///
/// The stream holds each point as x and y deltas from the previous one (signed varints); a dummy
/// point stands between parts. Every blob is checked against itself: the stream ends at the
/// blob's end, the marker is there, the points' envelope is the stored box, rings close.
public enum ShapeBlob {
    /// The shape codes this reader draws: the first code and the low nibble of the second.
    enum Shape {
        case point, polyline, polygon
    }

    /// The most points one shape may have: a coastline's worth; more is not drawn (and never allocated).
    public static let mostPoints = 1_000_000

    /// Decodes a blob; throws a `ShapeBlobError` for one that is damaged or cannot be drawn.
    public static func decode(_ blob: [UInt8], grid: CoordinateGrid) throws -> StoredShape {
        guard grid.isUsable else { throw ShapeBlobError.damaged("its coordinate grid is not usable") }
        guard blob.count >= 8 else { throw ShapeBlobError.damaged("the shape is \(blob.count) bytes, shorter than its header") }
        guard blob[0] == 0x64 else { throw ShapeBlobError.damaged("the shape does not start with Esri's marker byte") }
        let pointCount = Int(UInt32(blob[4]) | UInt32(blob[5]) << 8 | UInt32(blob[6]) << 16 | UInt32(blob[7]) << 24)
        if pointCount == 0 { return .empty }
        // Each point takes at least two bytes: a count beyond that is a lie, refused before any allocation.
        guard pointCount <= (blob.count - 8) / 2 else {
            throw ShapeBlobError.damaged("the shape claims \(pointCount) points in \(blob.count) bytes")
        }
        guard pointCount <= mostPoints else {
            throw ShapeBlobError.cannotBeDrawn("a shape of \(Format.grouped(pointCount)) points, more than the \(Format.grouped(mostPoints)) mapbook draws")
        }
        var reader = VarintReader(bytes: blob, at: 8)
        let first = try reader.unsigned(), second = try reader.unsigned()
        let shape = try kind(first: first, second: second)
        let multipart = second & 0x40 != 0

        var box: [Int64]?
        if shape != .point, pointCount > 10 { box = try (0..<4).map { _ in try reader.signed() } }
        var starts = [0]
        if multipart {
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
        let streamStart = blob.count - Int(streamLength)
        guard streamStart - 4 >= reader.offset, blob[streamStart - 4 ..< streamStart] == [1, 0, 0, 0] else {
            throw ShapeBlobError.damaged("its coordinate stream is not where its header says")
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
        guard reader.offset == blob.count else {
            throw ShapeBlobError.damaged("its \(pointCount) points end \(blob.count - reader.offset) bytes before the blob does")
        }

        // Parts without the dummy point before each further part.
        let ends = starts.dropFirst().map { $0 - 1 } + [pointCount]
        let parts = zip(starts, ends).map { raw[$0..<$1] }
        if let box {
            let real = parts.joined()
            let envelope = [real.map(\.x).min()!, real.map(\.y).min()!, real.map(\.x).max()!, real.map(\.y).max()!]
            guard envelope == box else { throw ShapeBlobError.damaged("its points lie outside its stored box") }
        }
        let scaled = parts.map { part in part.map { grid.value(x: $0.x, y: $0.y) } }
        switch shape {
        case .point:
            guard pointCount == 1, let point = scaled.first?.first else { throw ShapeBlobError.cannotBeDrawn("a multipoint") }
            return .point(x: point.x, y: point.y)
        case .polyline:
            guard parts.allSatisfy({ $0.count >= 2 }) else { throw ShapeBlobError.damaged("a line has a part of one point") }
            return .polyline(scaled)
        case .polygon:
            guard parts.allSatisfy({ $0.count >= 4 && $0.first! == $0.last! }) else { throw ShapeBlobError.damaged("a ring does not close") }
            return .polygon(scaled)
        }
    }

    /// The shape the two codes name. Seen in real files: `04 01` a point, `14 04`/`14 44`/`14 42`
    /// a polyline, `18 08`/`18 48` a polygon (`0x40`: several parts). Anything else (Z or M
    /// values, curves, multipatches) is named, not guessed at.
    static func kind(first: UInt64, second: UInt64) throws -> Shape {
        switch (first, second & 0x0F) {
        case (0x04, 0x01): return .point
        case (0x14, 0x02), (0x14, 0x04): return .polyline
        case (0x18, 0x08): return .polygon
        default:
            let codes = String(format: "%02x %02x", Int(truncatingIfNeeded: first), Int(truncatingIfNeeded: second))
            throw ShapeBlobError.cannotBeDrawn("a shape of kind \(codes) (Z or M values, curves or multipoints are not read yet)")
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

import Foundation

extension MVTTile {
    /// The tile in protobuf form (spec 2.1). Features keep their command streams as they are, so
    /// decoding the result gives back an equal tile.
    public func encoded() -> Data {
        var writer = ProtobufWriter()
        for layer in layers {
            writer.writeMessage(field: 3) { layer.encode(into: &$0) }
        }
        return Data(writer.bytes)
    }
}

extension MVTLayer {
    fileprivate func encode(into writer: inout ProtobufWriter) {
        writer.writeString(field: 1, name)
        for feature in features {
            writer.writeMessage(field: 2) { feature.encode(into: &$0) }
        }
        for key in keys { writer.writeString(field: 3, key) }
        for value in values {
            writer.writeMessage(field: 4) { value.encode(into: &$0) }
        }
        writer.writeVarint(field: 5, UInt64(extent))
        writer.writeVarint(field: 15, UInt64(version))
    }
}

extension MVTFeature {
    fileprivate func encode(into writer: inout ProtobufWriter) {
        if let id { writer.writeVarint(field: 1, id) }
        writer.writePacked(field: 2, tags)
        writer.writeVarint(field: 3, UInt64(type.rawValue))
        writer.writePacked(field: 4, commands)
    }
}

extension MVTValue {
    fileprivate func encode(into writer: inout ProtobufWriter) {
        switch self {
        case .string(let s): writer.writeString(field: 1, s)
        case .float(let f): writer.writeKey(field: 2, wire: 5); writer.appendLittleEndian(f.bitPattern)
        case .double(let d): writer.writeKey(field: 3, wire: 1); writer.appendLittleEndian(d.bitPattern)
        case .int(let i): writer.writeVarint(field: 4, UInt64(bitPattern: i))
        case .uint(let u): writer.writeVarint(field: 5, u)
        case .sint(let i): writer.writeVarint(field: 6, UInt64(bitPattern: (i << 1) ^ (i >> 63)))
        case .bool(let b): writer.writeVarint(field: 7, b ? 1 : 0)
        }
    }
}

extension MVTGeometry {
    /// The command stream (spec 4.3) for these parts: a MoveTo per point run, MoveTo + LineTo per line,
    /// and MoveTo + LineTo + ClosePath per ring. Ring winding is the caller's: exterior rings
    /// clockwise on screen (positive `signedArea`), holes the other way.
    public func commands(for type: MVTGeometryType) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(points.count * 2 + partEnds.count * 3)
        var cursor = MVTPoint(x: 0, y: 0)
        func command(_ id: UInt32, count: Int) { out.append(UInt32(count) << 3 | id) }
        func vertex(_ p: MVTPoint) {
            let dx = p.x &- cursor.x, dy = p.y &- cursor.y
            out.append(UInt32(bitPattern: (dx << 1) ^ (dx >> 31)))
            out.append(UInt32(bitPattern: (dy << 1) ^ (dy >> 31)))
            cursor = p
        }
        var start = 0
        for end in partEnds {
            let part = points[start..<end]
            start = end
            guard let first = part.first else { continue }
            switch type {
            case .point:
                command(1, count: part.count)
                part.forEach(vertex)
            case .lineString, .polygon:
                command(1, count: 1)
                vertex(first)
                command(2, count: part.count - 1)
                part.dropFirst().forEach(vertex)
                if type == .polygon { command(7, count: 1) }
            case .unknown:
                return []
            }
        }
        return out
    }
}

/// Builds a layer feature by feature, sharing keys and values between features as the spec intends.
/// Properties are taken in the order given, so equal input gives byte-equal tiles.
public struct MVTLayerBuilder {
    public private(set) var layer: MVTLayer
    private var keyIndex: [String: UInt32] = [:]
    private var valueIndex: [MVTValue: UInt32] = [:]

    public init(name: String, extent: Int = 4096) {
        layer = MVTLayer(name: name, extent: extent)
    }

    public mutating func add(id: UInt64? = nil, type: MVTGeometryType, geometry: MVTGeometry,
                             properties: [(key: String, value: MVTValue)]) {
        var tags: [UInt32] = []
        for (key, value) in properties {
            tags.append(intern(key, in: &keyIndex, list: &layer.keys))
            tags.append(intern(value, in: &valueIndex, list: &layer.values))
        }
        layer.features.append(MVTFeature(id: id, type: type, tags: tags, commands: geometry.commands(for: type),
                                          geometry: geometry))
    }

    private func intern<T: Hashable>(_ item: T, in index: inout [T: UInt32], list: inout [T]) -> UInt32 {
        if let known = index[item] { return known }
        let position = UInt32(list.count)
        index[item] = position
        list.append(item)
        return position
    }
}

/// Writes the protobuf wire format into a growing byte array.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func writeKey(field: UInt64, wire: UInt64) { appendVarint(field << 3 | wire) }

    mutating func writeVarint(field: UInt64, _ value: UInt64) {
        writeKey(field: field, wire: 0)
        appendVarint(value)
    }

    mutating func writeString(field: UInt64, _ value: String) {
        writeKey(field: field, wire: 2)
        let utf8 = Array(value.utf8)
        appendVarint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func writePacked(field: UInt64, _ values: [UInt32]) {
        guard !values.isEmpty else { return }
        var inner = ProtobufWriter()
        for v in values { inner.appendVarint(UInt64(v)) }
        writeKey(field: field, wire: 2)
        appendVarint(UInt64(inner.bytes.count))
        bytes.append(contentsOf: inner.bytes)
    }

    mutating func writeMessage(field: UInt64, _ body: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        body(&inner)
        writeKey(field: field, wire: 2)
        appendVarint(UInt64(inner.bytes.count))
        bytes.append(contentsOf: inner.bytes)
    }
}

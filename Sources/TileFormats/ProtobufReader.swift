/// Reads the protobuf wire format from a byte buffer, checking every length against what is left so
/// that hostile input can neither read out of bounds nor make us allocate more than it holds.
struct ProtobufReader {
    enum WireType: UInt8 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5
    }

    private let base: UnsafeRawPointer?
    private(set) var offset: Int
    let end: Int

    init(_ buffer: UnsafeRawBufferPointer) {
        base = buffer.baseAddress
        offset = 0
        end = buffer.count
    }

    private init(base: UnsafeRawPointer?, offset: Int, end: Int) {
        self.base = base; self.offset = offset; self.end = end
    }

    var isAtEnd: Bool { offset >= end }
    var remaining: Int { end - offset }

    /// The next field's number and wire type.
    mutating func readKey() throws(MVTError) -> (field: UInt64, wire: WireType) {
        let key = try readVarint()
        guard let wire = WireType(rawValue: UInt8(key & 7)), key >> 3 > 0 else {
            throw .malformed("unsupported wire type \(key & 7) at byte \(offset)")
        }
        return (key >> 3, wire)
    }

    mutating func readVarint() throws(MVTError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end {
            let byte = base!.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift >= 64 { throw .malformed("varint longer than 10 bytes") }
        }
        throw .truncated
    }

    mutating func readFixed32() throws(MVTError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated }
        let value = base!.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        return UInt32(littleEndian: value)
    }

    mutating func readFixed64() throws(MVTError) -> UInt64 {
        guard remaining >= 8 else { throw .truncated }
        let value = base!.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return UInt64(littleEndian: value)
    }

    /// A sub-reader over the next length-delimited field.
    mutating func readMessage() throws(MVTError) -> ProtobufReader {
        let length = try readVarint()
        guard length <= UInt64(remaining) else { throw .truncated }
        let sub = ProtobufReader(base: base, offset: offset, end: offset + Int(length))
        offset += Int(length)
        return sub
    }

    mutating func readString() throws(MVTError) -> String {
        let sub = try readMessage()
        guard let base else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: base + sub.offset, count: sub.remaining), as: UTF8.self)
    }

    /// Appends a repeated uint32 field, packed or not, to `values`.
    mutating func readRepeatedUInt32(_ wire: WireType, into values: inout [UInt32]) throws(MVTError) {
        switch wire {
        case .varint:
            values.append(UInt32(truncatingIfNeeded: try readVarint()))
        case .lengthDelimited:
            var packed = try readMessage()
            // Each varint is at least one byte: never reserve more than the bytes present.
            values.reserveCapacity(values.count + packed.remaining)
            while !packed.isAtEnd { values.append(UInt32(truncatingIfNeeded: try packed.readVarint())) }
        default:
            throw .malformed("repeated integer field with wire type \(wire.rawValue)")
        }
    }

    mutating func skip(_ wire: WireType) throws(MVTError) {
        switch wire {
        case .varint: _ = try readVarint()
        case .fixed64: guard remaining >= 8 else { throw .truncated }; offset += 8
        case .fixed32: guard remaining >= 4 else { throw .truncated }; offset += 4
        case .lengthDelimited: _ = try readMessage()
        }
    }
}

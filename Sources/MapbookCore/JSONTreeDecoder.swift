import Foundation

/// Decodes `Decodable` types from a `JSONValue` tree, so files mapbook wrote (the library's records
/// and catalogue) are read by `JSONParser` rather than Foundation's `JSONDecoder`, which reaches the
/// `JSONValue`s inside them only by trying each type in turn and throwing on every miss. Dates are
/// epoch milliseconds, as mapbook writes them.
public enum JSONTreeDecoder {
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: try JSONValue(parsing: data))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try TreeDecoder(value: value, codingPath: []).decodeValue(type)
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

/// One node of the tree being decoded.
struct TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch<T>(_ type: T.Type) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found \(value)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(Keyed(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self) }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(node: self) }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // The fast paths: a subtree is itself; a date is epoch milliseconds.
        if type == JSONValue.self { return value as! T }
        if type == Date.self {
            guard case .number(let ms) = value else { throw mismatch(Date.self) }
            return Date(timeIntervalSince1970: ms / 1000) as! T
        }
        return try T(from: self)
    }

    func decodeNumber<T: BinaryInteger>(_ type: T.Type) throws -> T {
        guard case .number(let n) = value, n.rounded() == n, let exact = T(exactly: n) else { throw mismatch(type) }
        return exact
    }

    func child(_ value: JSONValue, _ key: any CodingKey) -> TreeDecoder { TreeDecoder(value: value, codingPath: codingPath + [key]) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func node(_ key: Key) throws -> TreeDecoder {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no \(key.stringValue)"))
            }
            return TreeDecoder(value: value, codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { members[key.stringValue].map { $0 == .null } ?? true }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Single(node: node(key)).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try Single(node: node(key)).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Single(node: node(key)).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Single(node: node(key)).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try node(key).decodeNumber(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try node(key).decodeNumber(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try node(key).decodeNumber(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try node(key).decodeNumber(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try node(key).decodeNumber(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try node(key).decodeNumber(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try node(key).decodeNumber(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try node(key).decodeNumber(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try node(key).decodeNumber(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try node(key).decodeNumber(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try node(key).decodeValue(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey> {
            try node(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try node(key).unkeyedContainer() }
        func superDecoder() throws -> any Decoder { TreeDecoder(value: .object(members), codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { try node(key) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private mutating func next() throws -> TreeDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath, debugDescription: "the array ended"))
            }
            defer { currentIndex += 1 }
            return TreeDecoder(value: items[currentIndex], codingPath: codingPath + [AnyKey(intValue: currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    struct Single: SingleValueDecodingContainer {
        let node: TreeDecoder
        var codingPath: [any CodingKey] { node.codingPath }

        func decodeNil() -> Bool { node.value == .null }

        func decode(_ type: Bool.Type) throws -> Bool {
            guard case .bool(let b) = node.value else { throw node.mismatch(type) }
            return b
        }

        func decode(_ type: String.Type) throws -> String {
            guard case .string(let s) = node.value else { throw node.mismatch(type) }
            return s
        }

        func decode(_ type: Double.Type) throws -> Double {
            guard case .number(let n) = node.value else { throw node.mismatch(type) }
            return n
        }

        func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
        func decode(_ type: Int.Type) throws -> Int { try node.decodeNumber(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try node.decodeNumber(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try node.decodeNumber(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try node.decodeNumber(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try node.decodeNumber(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try node.decodeNumber(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try node.decodeNumber(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try node.decodeNumber(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try node.decodeNumber(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try node.decodeNumber(type) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try node.decodeValue(type) }
    }
}

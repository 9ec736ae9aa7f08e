import Foundation

/// A parsed JSON document. Portal responses vary in the wild (numbers sent as strings, `null` where a
/// value is expected, extra fields), so decoders read this tree through forgiving accessors instead of
/// failing a whole item over one odd field.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `data`; throws when it is not JSON at all.
    public init(parsing data: Data) throws {
        self = try JSONParser.parse(data)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    /// A non-empty string; numbers are rendered, everything else is nil.
    public var string: String? {
        switch self {
        case .string(let s): return s.isEmpty ? nil : s
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        default: return nil
        }
    }

    /// A number, also from a numeric string.
    public var double: Double? {
        switch self {
        case .number(let n): return n.isFinite ? n : nil
        case .string(let s): return Double(s.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
        default: return nil
        }
    }

    public var int64: Int64? { double?.int64(rounding: .towardZero) }

    public var bool: Bool? {
        switch self {
        case .bool(let b): return b
        case .string(let s): return s == "true" ? true : s == "false" ? false : nil
        case .number(let n): return n != 0
        default: return nil
        }
    }

    /// Array members; a non-array is an empty list.
    public var array: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    public var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// ArcGIS dates are epoch milliseconds.
    public var epochMillisecondsDate: Date? {
        guard let ms = double, ms > 0 else { return nil }
        return Date(timeIntervalSince1970: ms / 1000)
    }

    public var stringArray: [String] { array.compactMap(\.string) }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The value as one line of JSON, keys sorted: a request parameter that carries JSON.
    public var compactText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

extension Date {
    /// Whole milliseconds since 1970, as ArcGIS sends dates.
    public var epochMilliseconds: Int64 { (timeIntervalSince1970 * 1000).int64() ?? 0 }
}

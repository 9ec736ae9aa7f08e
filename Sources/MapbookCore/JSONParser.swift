import Foundation

/// Reads JSON (RFC 8259) straight from bytes into a `JSONValue`. Foundation's `JSONDecoder` reaches
/// a `JSONValue` only by trying each type in turn and throwing on every miss, which made reading a
/// portal answer or the library several times slower than the bytes warrant (docs/benchmarks.md).
/// Nesting is limited, so a hostile document cannot exhaust the stack.
struct JSONParser {
    struct Failure: Error, Sendable, CustomStringConvertible, UserFacingError {
        let offset: Int
        let reason: String
        var description: String { "\(reason) at byte \(offset)" }
        var userMessage: String { "It is not valid JSON (\(description))." }
    }

    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static func parse(_ data: Data) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure> = data.withUnsafeBytes { raw in
            var parser = JSONParser(raw.bindMemory(to: UInt8.self))
            return Result { () throws(Failure) in
                parser.skipByteOrderMark()
                let value = try parser.value()
                parser.skipWhitespace()
                guard parser.position == parser.bytes.count else { throw parser.failure("unexpected text after the document") }
                return value
            }
        }
        return try result.get()
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: position, reason: reason) }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func value() throws(Failure) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw failure("the document ends early") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
              (0..<count).allSatisfy({ bytes[position + $0] == word.utf8Start[$0] }) else { throw failure("unexpected word") }
        position += count
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            members[key] = try value()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { position += 1; return .array(items) }
        while true {
            items.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(items)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func number() throws(Failure) -> Double {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.position
            while let byte = parser.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { parser.position += 1 }
            return parser.position - from
        }
        guard digits(&self) > 0 else { throw failure("a number without digits") }
        if current == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw failure("a number without digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw failure("a number without an exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let number = Double(text) else { throw Failure(offset: start, reason: "an unreadable number") }
        return number
    }

    private mutating func string() throws(Failure) -> String {
        position += 1
        let start = position
        // The common case: no escapes, read in one piece.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw failure("a control character inside a string") }
            position += 1
        }
        guard let stop = current else { throw failure("a string that never ends") }
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        if stop == UInt8(ascii: "\\") { try escapedRest(into: &utf8) }
        position += 1
        return String(decoding: utf8, as: UTF8.self)
    }

    /// From the first backslash to the closing quote (not consumed).
    private mutating func escapedRest(into utf8: inout [UInt8]) throws(Failure) {
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                return
            case UInt8(ascii: "\\"):
                position += 1
                guard let escaped = current else { break }
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: String(try unicodeEscape()).utf8)
                default: throw failure("an unknown escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("a control character inside a string") }
                utf8.append(byte)
                position += 1
            }
        }
        throw failure("a string that never ends")
    }

    /// After `\u`: one scalar, joining a surrogate pair; a lone surrogate reads as U+FFFD.
    private mutating func unicodeEscape() throws(Failure) -> Character {
        let first = try hex4()
        if (0xD800..<0xDC00).contains(first), position + 6 <= bytes.count,
           bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
            let mark = position
            position += 2
            let second = try hex4()
            if (0xDC00..<0xE000).contains(second) {
                let scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")
            }
            position = mark
        }
        return Character(Unicode.Scalar(first) ?? "\u{FFFD}")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape that is not hexadecimal")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}

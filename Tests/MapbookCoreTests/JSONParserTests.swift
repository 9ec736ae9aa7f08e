import Foundation
import Testing
@testable import MapbookCore

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    @Test func readsEveryKindOfValue() throws {
        let json = try parse(#" { "a" : [1, -2.5e2, 0.125, true, false, null], "b": {"c": "d"}, "e": [] , "f": {} } "#)
        #expect(json == .object(["a": .array([.number(1), .number(-250), .number(0.125), .bool(true), .bool(false), .null]),
                                 "b": .object(["c": .string("d")]), "e": .array([]), "f": .object([:])]))
    }

    @Test func readsEscapesAndUnicode() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""\u00e9\u4e2d""#) == .string("é中"))
        #expect(try parse(#""\ud83d\uddfa map""#) == .string("🗺 map"))
        #expect(try parse("\"Lüneburg 🗺\"") == .string("Lüneburg 🗺"))
        // A lone surrogate cannot be a scalar: it reads as the replacement character, not a failure.
        #expect(try parse(#""\ud800x""#) == .string("\u{FFFD}x"))
    }

    @Test func readsAByteOrderMarkAndLastDuplicateKey() throws {
        #expect(try JSONValue(parsing: Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) == .array([.number(1)]))
        #expect(try parse(#"{"a": 1, "a": 2}"#) == .object(["a": .number(2)]))
    }

    @Test(arguments: ["", "  ", "{", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{a:1}", "01x", "-", "1.", "1e", ".5",
                      "tru", "nul", "\"abc", "\"a\u{1}b\"", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "[1] 2", "NaN", "Infinity"])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: (any Error).self) { try parse(text) }
    }

    @Test func refusesHostileNestingWithoutExhaustingTheStack() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: (any Error).self) { try parse(deep) }
        let allowed = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(try parse(allowed).array.count == 1)
    }

    @Test func agreesWithFoundationOnARealDocument() throws {
        let text = #"{"id":"3bc3179f17da44a0ac0bfdac4ad15664","extent":[[-71.3,42.2],[-66.9,47.5]],"size":-1,"#
            + #""typeKeywords":["ArcGIS Online","Offline"],"snippet":"Maine \u2014 \"explore\"","modified":1700000000000}"#
        let ours = try parse(text)
        let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(ours == theirs)
    }
}

/// Records written with Foundation's JSONEncoder (dates as epoch milliseconds) read back the same
/// through the tree decoder; wrong types and missing keys are errors, as with JSONDecoder.
@Suite struct JSONTreeDecoderTests {
    struct Record: Codable, Equatable {
        var id: String
        var size: Int64
        var ratio: Double
        var flag: Bool
        var when: Date
        var optional: Int?
        var absent: String?
        var tree: JSONValue
        var list: [Int]
        var nested: [String: [UInt8]]
    }

    @Test func readsWhatJSONEncoderWrote() throws {
        let record = Record(id: "a", size: 1_700_000_200_000, ratio: 0.25, flag: true, when: Date(timeIntervalSince1970: 1_763_700_000.5),
                            optional: nil, absent: nil, tree: .object(["x": .array([.number(1), .null, .string("é")])]),
                            list: [1, 2, 3], nested: ["k": [0, 255]])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let data = try encoder.encode(record)
        #expect(try JSONTreeDecoder.decode(Record.self, from: data) == record)
    }

    @Test func refusesWhatDoesNotFit() {
        #expect(throws: DecodingError.self) { try JSONTreeDecoder.decode([Int].self, from: Data("[1, 2.5]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONTreeDecoder.decode([UInt8].self, from: Data("[256]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONTreeDecoder.decode([String: String].self, from: Data(#"{"a": 1}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONTreeDecoder.decode(Record.self, from: Data("{}".utf8)) }
        #expect(throws: (any Error).self) { try JSONTreeDecoder.decode(Record.self, from: Data("{".utf8)) }
    }
}

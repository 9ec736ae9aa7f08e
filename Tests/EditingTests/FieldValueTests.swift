import ArcGISModel
import Editing
import Foundation
import MapbookCore
import Testing

/// What an editor may store in a field, read from the layer's own description: its type, length,
/// nullability, coded values and range, and whether it is the server's to keep.
@Suite("A field's value")
struct FieldValueTests {
    static let layer = JSONValue.object(["fields": .array([
        .object(["name": .string("OBJECTID"), "type": .string("esriFieldTypeOID"), "editable": .bool(false), "nullable": .bool(false)]),
        .object(["name": .string("SITE_NAME"), "alias": .string("Site name"), "type": .string("esriFieldTypeString"), "length": .number(20),
                 "nullable": .bool(false), "editable": .bool(true)]),
        .object(["name": .string("KIND"), "type": .string("esriFieldTypeSmallInteger"), "nullable": .bool(true),
                 "domain": .object(["type": .string("codedValue"), "codedValues": .array([
                     .object(["code": .number(1), "name": .string("Nest")]), .object(["code": .number(2), "name": .string("Roost")])])])]),
        .object(["name": .string("DEPTH"), "type": .string("esriFieldTypeDouble"),
                 "domain": .object(["type": .string("range"), "range": .array([.number(0), .number(12.5)])])]),
        .object(["name": .string("SEEN"), "type": .string("esriFieldTypeDate")]),
        .object(["name": .string("PHOTO"), "type": .string("esriFieldTypeBlob")]),
    ])])

    static func field(_ name: String) throws -> FeatureField {
        try #require((layer["fields"]?.array ?? []).compactMap(FeatureField.init(json:)).first { $0.name == name })
    }

    func problem(_ result: Result<JSONValue, FieldProblem>) -> String? {
        if case .failure(let problem) = result { problem.userMessage } else { nil }
    }

    @Test func theLayersDescriptionSaysWhatMayBeEdited() throws {
        let id = try Self.field("OBJECTID"), name = try Self.field("SITE_NAME"), depth = try Self.field("DEPTH")
        #expect(!id.editable && name.editable && !name.nullable && name.length == 20 && depth.range == 0...12.5)
        #expect(problem(id.value(typed: "7")) == "OBJECTID is kept by the server and cannot be edited.")
    }

    @Test func aRequiredFieldRefusesNothingAndTextIsKeptAsTyped() throws {
        let name = try Self.field("SITE_NAME")
        #expect(problem(name.value(typed: "  ")) == "Site name is required.")
        #expect(try name.value(typed: "Heron \u{1B}[31mcove").get() == .string("Heron \u{1B}[31mcove"))
        #expect(problem(name.value(typed: String(repeating: "a", count: 21))) == "Site name holds at most 20 characters, not 21.")
        #expect(problem(name.value(typed: String(repeating: "a", count: 1 << 20)))?.hasPrefix("Site name holds at most 20") == true)
        #expect(try Self.field("KIND").value(typed: "").get() == .null, "a field that may be empty")
    }

    @Test func aCodedValueIsTakenByCodeOrNameAndNothingElse() throws {
        let kind = try Self.field("KIND")
        #expect(try kind.value(typed: "2").get() == .number(2))
        #expect(try kind.value(typed: "nest").get() == .number(1))
        #expect(problem(kind.value(typed: "3")) == "KIND must be one of 1 (Nest), 2 (Roost).")
        #expect(problem(kind.value(typed: "70000"))?.contains("whole number") == true)
    }

    @Test func numbersKeepToTheirRangeAndDatesToTheCalendar() throws {
        let depth = try Self.field("DEPTH"), seen = try Self.field("SEEN")
        #expect(try depth.value(typed: "3.25").get() == .number(3.25))
        #expect(problem(depth.value(typed: "13")) == "DEPTH must be from 0 to 12.5.")
        #expect(problem(depth.value(typed: "nan")) == "DEPTH must be a number.")
        #expect(try seen.value(typed: "2026-11-27").get() == .number(1_795_737_600_000))
        #expect(try seen.value(typed: "2026-11-27T14:30:00Z").get() == .number(1_795_789_800_000))
        for refused in ["30000-01-01", "2026-02-30", "yesterday", "0000-01-01"] {
            #expect(problem(seen.value(typed: refused))?.contains("must be a date") == true, "\(refused)")
        }
        #expect(problem(try Self.field("PHOTO").value(typed: "x")) == "PHOTO is a field of type Blob, which mapbook does not edit.")
    }
}

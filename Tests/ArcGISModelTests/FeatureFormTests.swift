import ArcGISModel
import Foundation
import MapbookCore
import Testing

/// A feature's form generated from what the data says: the layer's fields, its types, the web
/// map's popup and Field Maps form.
struct FeatureFormTests {
    static let layer: JSONValue = try! JSONValue(parsing: Data(#"""
    {"geometryType": "esriGeometryPoint", "objectIdField": "OBJECTID", "fields": [
      {"name": "OBJECTID", "type": "esriFieldTypeOID"},
      {"name": "GlobalID", "type": "esriFieldTypeGlobalID"},
      {"name": "SITE_NAME", "alias": "Site name", "type": "esriFieldTypeString", "length": 40, "nullable": false},
      {"name": "KIND", "alias": "Kind", "type": "esriFieldTypeSmallInteger",
       "domain": {"type": "codedValue", "codedValues": [{"code": 1, "name": "Well"}, {"code": 2, "name": "Spring"}]}},
      {"name": "DEPTH", "alias": "Depth (m)", "type": "esriFieldTypeDouble", "domain": {"type": "range", "range": [0, 500]}},
      {"name": "NOTES", "alias": "Notes", "type": "esriFieldTypeString", "length": 200},
      {"name": "SURVEYED", "alias": "Surveyed", "type": "esriFieldTypeDate"},
      {"name": "CODE", "alias": "Code", "type": "esriFieldTypeString", "nullable": false},
      {"name": "EditDate", "type": "esriFieldTypeDate", "editable": false}
    ]}
    """#.utf8))

    static var info: FeatureLayerInfo { FeatureLayerInfo(json: layer)! }

    func labels(_ form: FeatureFormDefinition) -> [String] { form.entries.map(\.label) }

    @Test func withoutAPopupOrAFormItIsTheLayersEditableFieldsInOrder() {
        let form = FeatureFormDefinition(layer: Self.info)
        #expect(labels(form) == ["Site name", "Kind", "Depth (m)", "Notes", "Surveyed", "Code"])
        #expect(form.entries.filter(\.required).map(\.field.name) == ["SITE_NAME", "CODE"])
        #expect(form.notes.isEmpty)
    }

    @Test func aPopupGivesTheOrderAndLabelsAndLeavesOutWhatItMakesReadOnly() throws {
        let popup = try JSONValue(parsing: Data(#"""
        {"fieldInfos": [{"fieldName": "NOTES", "label": "What was seen", "isEditable": true},
                        {"fieldName": "site_name", "label": "Name"},
                        {"fieldName": "DEPTH", "isEditable": false},
                        {"fieldName": "EditDate", "label": "Edited", "isEditable": true}]}
        """#.utf8))
        let form = FeatureFormDefinition(layer: Self.info, popupInfo: popup)
        // The server's field stays out whatever the popup says; a required field it left out comes last.
        #expect(labels(form) == ["What was seen", "Name", "Code"])
    }

    @Test func aFieldMapsFormGivesOrderGroupsHintsItsOwnDomainsAndSaysWhatArcadeItLeavesOut() throws {
        let formInfo = try JSONValue(parsing: Data(#"""
        {"formElements": [
           {"type": "field", "fieldName": "KIND", "label": "What it is", "domain": {"type": "codedValue", "codedValues": [{"code": 1, "name": "Drilled well"}]}},
           {"type": "group", "label": "Visit", "formElements": [
              {"type": "field", "fieldName": "SURVEYED", "label": "Day", "hint": "The day you were there", "requiredExpression": "expr/always"},
              {"type": "field", "fieldName": "DEPTH", "visibilityExpression": "expr/wells-only"},
              {"type": "field", "fieldName": "NOTES", "editableExpression": "expr/never"}]},
           {"type": "text", "text": "Thank you"},
           {"type": "field", "fieldName": "SITE_NAME"},
           {"type": "field", "fieldName": "NO_SUCH_FIELD"}],
         "expressionInfos": [
           {"name": "expr/always", "expression": "true", "returnType": "boolean"},
           {"name": "expr/never", "expression": " return false; ", "returnType": "boolean"},
           {"name": "expr/wells-only", "expression": "$feature.KIND == 1", "returnType": "boolean"}]}
        """#.utf8))
        let form = FeatureFormDefinition(layer: Self.info, formInfo: formInfo)
        #expect(labels(form) == ["What it is", "Day", "Depth (m)", "Site name", "Code"])
        #expect(form.entries.map(\.group) == [nil, "Visit", "Visit", nil, nil])
        #expect(form.entries[0].field.codedValues == ["1": "Drilled well"], "the form's domain wins over the field's")
        #expect(form.entries[1].required && form.entries[1].hint == "The day you were there")
        #expect(!form.entries[2].required, "an expression not evaluated does not make a field required")
        #expect(form.notes == ["Arcade expressions are not evaluated here; left out: Depth (m) (when shown)."])
    }

    @Test func valuesAreCheckedByTheFieldsRulesAndTheFormsRequiredOnes() throws {
        let form = FeatureFormDefinition(layer: Self.info)
        func problem(_ typed: [String: String], all: Bool = true) -> String? {
            if case .failure(let refusal) = form.values(typed, ofType: nil, requireAll: all) { refusal.userMessage } else { nil }
        }
        #expect(problem(["SITE_NAME": "Heron cove"]) == "Code is required.")
        #expect(problem(["SITE_NAME": "  ", "CODE": "A"]) == "Site name is required.")
        #expect(problem(["SITE_NAME": "Heron cove", "CODE": "A", "KIND": "3"])?.hasPrefix("Kind must be one of 1 (Well), 2 (Spring)") == true)
        #expect(problem(["SITE_NAME": "Heron cove", "CODE": "A", "DEPTH": "501"]) == "Depth (m) must be from 0 to 500.")
        #expect(problem(["SITE_NAME": "Heron cove", "CODE": "A", "SURVEYED": "30000-01-01"])?.contains("year 1 to 9999") == true)
        #expect(problem(["SITE_NAME": String(repeating: "x", count: 41), "CODE": "A"]) == "Site name holds at most 40 characters, not 41.")
        // An update checks only what it changes.
        #expect(problem(["NOTES": "Dry"], all: false) == nil)
        let values = try form.values(["SITE_NAME": "Heron cove \u{1B}[31m", "CODE": "A", "KIND": "spring", "DEPTH": ""], ofType: nil, requireAll: true).get()
        #expect(values == ["SITE_NAME": .string("Heron cove \u{1B}[31m"), "CODE": .string("A"), "KIND": .number(2), "DEPTH": .null])
    }

    @Test func aLayersTypesComeFirstAndGiveTheOtherFieldsTheirDomainsAndDefaults() throws {
        var json = Self.layer.object!
        json["typeIdField"] = .string("KIND")
        json["types"] = try JSONValue(parsing: Data(#"""
        [{"id": 1, "name": "Well", "domains": {"DEPTH": {"type": "range", "range": [0, 80]}, "NOTES": {"type": "inherited"}},
          "templates": [{"name": "Well", "prototype": {"attributes": {"KIND": 1, "DEPTH": 10, "CODE": "W"}}}]},
         {"id": 2, "name": "Spring", "domains": {"CODE": {"type": "codedValue", "codedValues": [{"code": "S1", "name": "Seep"}]}}}]
        """#.utf8))
        let info = try #require(FeatureLayerInfo(json: .object(json)))
        let form = FeatureFormDefinition(layer: info)
        #expect(form.entries.first?.field.name == "KIND" && form.entries.first?.required == true)
        #expect(form.entries.first?.field.codedValues == ["1": "Well", "2": "Spring"])
        #expect(form.entries(ofType: "1").first { $0.field.name == "DEPTH" }?.field.range == 0...80)
        #expect(form.entries(ofType: "2").first { $0.field.name == "CODE" }?.field.codedValues == ["S1": "Seep"])
        #expect(form.defaults(ofType: "1") == ["KIND": .number(1), "DEPTH": .number(10), "CODE": .string("W")])
        if case .failure(let refusal) = form.values(["KIND": "2", "SITE_NAME": "x", "CODE": "W"], ofType: "2", requireAll: true) {
            #expect(refusal.userMessage.hasPrefix("Code must be one of S1 (Seep)"))
        } else {
            Issue.record("a code outside the type's domain was taken")
        }
    }

    @Test func hostileFormsAreBoundedAndSanitized() throws {
        let elements = (0..<5_000).map { _ in #"{"type": "group", "label": "\u001b[2J", "formElements": [{"type": "field", "fieldName": "NOTES", "label": "\u001b]0;x\u0007Notes"}]}"# }
        let formInfo = try JSONValue(parsing: Data(#"{"formElements": [\#(elements.joined(separator: ","))]}"#.utf8))
        let form = FeatureFormDefinition(layer: Self.info, formInfo: formInfo)
        #expect(form.entries.map(\.field.name) == ["NOTES", "SITE_NAME", "CODE"], "a field once, the required ones after")
        #expect(form.entries.allSatisfy { !$0.label.contains("\u{1B}") && !($0.group ?? "").contains("\u{1B}") })
    }
}

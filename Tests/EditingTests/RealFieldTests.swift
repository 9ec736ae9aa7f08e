import ArcGISModel
import Editing
import Foundation
import Geodatabase
import MapbookCore
import SharedTestData
import Testing

/// The field rules over a replica Collector for ArcGIS wrote (`appstudio_offlineSample.geodatabase`,
/// its Residential Buildings layer, read by our geodatabase reader from `GDB_ServiceItems`): what
/// the server keeps, lengths, coded values on text fields, whole numbers, dates.
struct RealFieldTests {
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func aCollectorReplicasFieldsSayWhatMayBeTyped() throws {
        let gdb = try Geodatabase(path: SharedData.url("real/appstudio_offlineSample.geodatabase").path)
        let layer = try #require(gdb.layer(serviceLayerID: 1))
        #expect(layer.info.name == "Residential Buildings")
        func field(_ name: String) throws -> FeatureField { try #require(layer.info.fields.first { $0.name == name }) }
        func problem(_ name: String, _ typed: String) throws -> String? {
            if case .failure(let refusal) = try field(name).value(typed: typed) { refusal.userMessage } else { nil }
        }
        // Editor tracking and the ids are the server's.
        for kept in ["OBJECTID", "GlobalID", "CreationDate", "Creator", "EditDate", "Editor"] {
            #expect(try !field(kept).editable, "\(kept)")
        }
        #expect(try field("INCIDENTID").length == 30 && field("INCIDENTID").nullable)
        #expect(try problem("INCIDENTID", String(repeating: "7", count: 31)) == "Incident Number holds at most 30 characters, not 31.", "named by its alias")
        #expect(try field("HOMETYPE").value(typed: "mobile home").get() == .string("Mobile Home"))
        #expect(try problem("HOMETYPE", "Castle")?.hasPrefix("Type of Home must be one of Detached Home, Duplex/Townhome, Mobile Home") == true)
        #expect(try field("NUMOCCUP").value(typed: "4").get() == .number(4))
        #expect(try problem("NUMOCCUP", "3.5")?.contains("must be a whole number") == true)
        #expect(try field("INSPDATE").value(typed: "2026-11-27").get() == .number(1_795_737_600_000))
        #expect(try field("STRLOSS").value(typed: "125000.50").get() == .number(125_000.5))
    }

    /// Capabilities as the real files list them: Collector's replica takes every edit; the
    /// Canyonlands preplanned area's roads and trails are read-only on their service ("Query,Sync"),
    /// so an edit is refused before anything is typed, in one sentence.
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func aReadOnlyLayerOfARealAreaRefusesEdits() throws {
        let collector = try Geodatabase(path: SharedData.url("real/appstudio_offlineSample.geodatabase").path)
        let buildings = try #require(collector.layer(serviceLayerID: 1))
        for edit in [EditCapabilities.Edit.add, .update, .delete] {
            #expect(buildings.info.editCapabilities.refusal(of: edit, layer: buildings.info.name) == nil)
        }
        let folder = SharedData.url("real/canyonlands_preplanned_area/p13").path
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".geodatabase") })
        let canyonlands = try Geodatabase(path: folder + "/" + file)
        let layers = canyonlands.layers
        #expect(!layers.isEmpty)
        for layer in layers {
            let refusal = layer.info.editCapabilities.refusal(of: .add, layer: layer.info.name)
            #expect(refusal == "\(layer.info.name) is read-only on its service: features cannot be added (it allows query, sync).")
        }
    }
}

/// The form of a layer in the replica Collector for ArcGIS wrote: its damage types first, each a
/// name people know, every field the layer lets an editor set after it.
struct RealFormTests {
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func aCollectorReplicasTypesLeadItsForm() throws {
        let gdb = try Geodatabase(path: SharedData.url("real/appstudio_offlineSample.geodatabase").path)
        let layer = try #require(gdb.layer(serviceLayerID: 1))
        let form = FeatureFormDefinition(layer: layer.info)
        let types = try #require(layer.info.types)
        #expect(types.field == "TYPDAMAGE")
        let first = try #require(form.entries.first)
        #expect(first.field.name == "TYPDAMAGE" && first.required)
        #expect(Set(first.field.codedValues.values).isSuperset(of: ["Destroyed", "Major", "Minor"]))
        // Inherited domains leave the fields' own: HOMETYPE keeps its coded values under every type.
        #expect(form.entries(ofType: "Major").first { $0.field.name == "HOMETYPE" }?.field.codedValues.isEmpty == false)
        #expect(!form.entries.contains { ["OBJECTID", "GlobalID", "CreationDate", "EditDate"].contains($0.field.name) })
        #expect(form.entries.count == layer.info.fields.filter(\.editable).count)
    }
}

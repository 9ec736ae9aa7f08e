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
}

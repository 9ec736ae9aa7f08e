import AppModel
import ArcGISModel
import AppRuntime
import EventLoop
import ArcGISPortal
import Foundation
import LoopbackHTTP
import MapRender
import MapbookCore
import PortalFixtures
import Testing
@testable import TerminalRender
@testable import TerminalUI

/// A portal whose strings carry escape sequences and control bytes: what reaches the screen must be
/// inert text.
@Suite struct HostileTextTests {
    static let webMap = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let area = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    static let failing = "cccccccccccccccccccccccccccccccc"

    static func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let path = request.path
        if path.contains(failing) {
            return .json(#"{"error":{"code":500,"message":"boom\u001b[2J\u001b]0;title\u0007 now","details":["\u009b6n"]}}"#)
        }
        if path.hasSuffix("/\(webMap)") {
            return .json(#"{"id":"\#(webMap)","type":"Web Map","title":"Evil\u001b[2J\u0007 Map\u009b31m","owner":"x\u001b]0;pwned\u0007y","snippet":"one\ntwo\r\u001b[1;1Hthree","description":"<p>Hi\u001b[?1049h</p>"}"#)
        }
        if path.hasSuffix("/\(webMap)/data") {
            return .json(#"{"baseMap":{"title":"Base\u001b[31m","baseMapLayers":[]},"operationalLayers":[],"bookmarks":[{"name":"\u001bPdcs\u001b\\Mark","extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":4326}}}]}"#)
        }
        if path.hasSuffix("/relatedItems"), request.query["relationshipType"] == "Map2Area" {
            return .json(#"{"total":1,"relatedItems":[{"id":"\#(area)","type":"Map Area","title":"Area\u001b[H\u001b[2J\u0000!","snippet":"\u0008\u0008\u0008gone","properties":{"status":"\u001b[5mweird"},"extent":[[-70,43],[-69,44]]}]}"#)
        }
        if path.hasSuffix("/relatedItems") { return .json(#"{"total":0,"relatedItems":[]}"#) }
        return .json(#"{"error":{"code":400,"message":"not here"}}"#)
    }

    /// The program after loading `webMap` from this hostile portal (whose items have no
    /// thumbnails: waiting for them would wait out the fixture's three minutes).
    @UIActor private func load(_ webMap: String) async throws -> Program {
        let server = try LoopbackServer(handler: Self.respond)
        defer { server.stop() }
        let program = await ProgramFixture.started(portal: server.baseURL, webMap: webMap) {
            $0.catalog.phase == .loaded || ProgramFixture.settledLoad($0)
        }
        await program.shutdown()
        return program
    }

    @Test @UIActor func escapeSequencesAndControlBytesRenderInert() async throws {
        let model = try await load(Self.webMap)
        #expect(model.state.catalog.phase == .loaded)
        #expect(model.state.catalog.webMapItem?.title == "Evil Map")
        #expect(model.state.catalog.areas.first?.item.title == "Area !")

        var state = model.state
        var frames = [SnapshotState.render(state, width: 120, height: 40)]
        state.list.selection = 1
        frames.append(SnapshotState.render(state, width: 120, height: 40))
        state.screen = .details(scroll: 0)
        frames.append(SnapshotState.render(state, width: 120, height: 40))
        state.list.selection = 0
        frames.append(SnapshotState.render(state, width: 120, height: 40))
        for frame in frames {
            let scalars = frame.cells.flatMap { $0.character.unicodeScalars }
            #expect(!scalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            #expect(!frame.text.contains("[2J") && !frame.text.contains("pwned") && !frame.text.contains("1049"))
        }
        #expect(frames[0].text.contains("Evil Map"))
        #expect(frames[1].text.contains("Unavailable · status “weird”"))
        #expect(frames[3].text.contains("xy"))
        #expect(frames[3].text.contains("Mark"))
    }

    /// A feature's values from a hostile geodatabase, and a value a script typed with `set`, in the
    /// form: kept as they are, drawn inert.
    @Test @UIActor func aFeaturesValuesInItsFormRenderInert() async throws {
        var state = await SnapshotState.loaded()
        let info = FeatureLayerInfo(name: "Sites", geometryType: .point,
                                    fields: [FeatureField(name: "NAME", alias: "Name\u{1B}[2J", type: "esriFieldTypeString"),
                                             FeatureField(name: "NOTE", type: "esriFieldTypeString")],
                                    renderer: FeatureRenderer(kind: .simple, classes: [], defaultSymbol: nil))
        var editor = FeatureEditor(area: ItemID("a0000000000000000000000000000001")!, webMapLayers: [],
                                   layers: [EditableLayer(title: "Sites\u{1B}]0;pwned\u{07}", form: FeatureFormDefinition(layer: info))],
                                   target: .update(layer: "Sites\u{1B}]0;pwned\u{07}", objectID: 3, values: ["NAME": "Mill\u{1B}[2J\u{9B}31m\u{07}"]))
        editor.fields[1].text = "typed\u{1B}]0;pwned\u{07} by a script"
        #expect(editor.typed["NAME"] == "Mill\u{1B}[2J\u{9B}31m\u{07}", "kept as it is")
        state.overlay = .featureForm(editor)
        let frame = SnapshotState.render(state, width: 120, height: 40)
        let scalars = frame.cells.flatMap { $0.character.unicodeScalars }
        #expect(!scalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!frame.text.contains("[2J") && !frame.text.contains("pwned"))
        #expect(frame.text.contains("Mill") && frame.text.contains("by a script"), "\(frame.text)")
    }

    @Test @UIActor func anErrorMessageFromTheServerIsSanitizedToo() async throws {
        let model = try await load(Self.failing)
        guard case .failed(let sentence) = model.state.catalog.phase else {
            Issue.record("expected a failure, got \(model.state.catalog.phase)")
            return
        }
        #expect(sentence.contains("boom now"))
        #expect(!sentence.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!sentence.contains("[2J") && !sentence.contains("title") && !sentence.contains("6n"))
        let frame = SnapshotState.render(model.state, width: 100, height: 30)
        #expect(frame.text.contains("The portal answered with an error"))
    }
}

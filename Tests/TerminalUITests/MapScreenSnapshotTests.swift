import AppModel
import AppRuntime
import EventLoop
import Foundation
import MapRender
import MapSources
import MapbookCore
import PortalFixtures
import Testing
@testable import TerminalRender
@testable import TerminalUI

/// The map screen as the app draws it: header, picture, a panel, the footer.
@Suite @UIActor struct MapScreenSnapshotTests {
    func model(width: Int, height: Int, options: RenderOptions) async throws -> Program {
        await ProgramFixture.map(try PackageMapSource(path: SampleFixture.acadiaPackagePath), title: "Acadia basemap.vtpk",
                                 display: Renderer.display(width: width, height: height, options: options))
    }

    @Test func mapWithFooter() async throws {
        let model = try await model(width: 120, height: 40, options: SnapshotState.options)
        let frame = Renderer.render(model.state, width: 120, height: 40, options: SnapshotState.options)
        #expect(frame.row(at: 0).contains("Acadia basemap.vtpk › Map"))
        #expect(frame.row(at: 39).contains("z9.4") && frame.row(at: 39).contains("braille"))
        expectSnapshot(frame, "map-120x40")
    }

    @Test func layerListInASCII() async throws {
        let options = RenderOptions(glyphs: .ascii, theme: .monochrome, geography: .empty)
        let model = try await model(width: 80, height: 24, options: options)
        model.send(.terminal(.key(.character("L"))))
        model.send(.terminal(.key(.down)))
        model.send(.terminal(.key(.character(" "))))
        await ProgramFixture.settle(model, until: ProgramFixture.mapDrawn)
        let frame = Renderer.render(model.state, width: 80, height: 24, options: options)
        #expect(frame.text.contains("[ ] state") && frame.text.contains("[x] places"))
        #expect(frame.row(at: 23).contains("ascii"))
        expectSnapshot(frame, "map-layers-ascii-80x24")
    }
}

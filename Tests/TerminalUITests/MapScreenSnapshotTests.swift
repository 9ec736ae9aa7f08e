import AppModel
import AppRuntime
import EventLoop
import Foundation
import MapRender
import MapSources
import MapbookCore
import PortalFixtures
import Geometry
import Location
import TerminalCanvas
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

    /// This device's position: a mark at its cell (an arrow while it moves, grey when stale), its
    /// accuracy a circle around it, the fix in the status bar; the overview marks it too.
    @Test func thePositionIsMarkedWithItsAccuracyAndHeading() async throws {
        let model = try await model(width: 120, height: 40, options: SnapshotState.options)
        var state = model.state
        let map = try #require(state.map), rect = ScreenLayout.mapRect(width: 120, height: 40)
        let projection = map.viewport.projection(columns: rect.width, rows: rect.height)
        let point = map.viewport.center.geographic
        let (column, row) = try #require(projection.cell(MercatorPoint(point)))
        func fix(speed: Double?, accuracy: Double) -> LocationStatus {
            .fix(GPSFix(dimension: .threeD, position: point, accuracy: accuracy, track: 90, speed: speed), Satellites(used: 8, visible: 12))
        }
        let here = MapTheme().here
        state.places.here = fix(speed: nil, accuracy: 3_000)
        var frame = Renderer.render(state, width: 120, height: 40, options: SnapshotState.options)
        #expect(frame[rect.x + column, rect.y + row].character == "◎" && frame[rect.x + column, rect.y + row].style.foreground == here)
        let circle = (rect.y..<rect.maxY).flatMap { y in (rect.x..<rect.maxX).map { frame[$0, y] } }.filter { $0.style.foreground == here }
        #expect(circle.count > 20, "the accuracy circle: \(circle.count) cells")
        #expect(frame.row(at: 39).contains("◎ 3D ±3000 m"), "\(frame.row(at: 39))")
        // A place searched in the same cell: this device's mark stays on top.
        state.withMap { $0.pin = MapPin(point: point, label: "Bar Harbor") }
        #expect(Renderer.render(state, width: 120, height: 40, options: SnapshotState.options)[rect.x + column, rect.y + row].character == "◎")
        state.withMap { $0.pin = nil }
        // Moving east: an arrow; a small accuracy draws no circle at this scale.
        state.places.here = fix(speed: 3, accuracy: 5)
        frame = Renderer.render(state, width: 120, height: 40, options: SnapshotState.options)
        #expect(frame[rect.x + column, rect.y + row].character == "→")
        let cells = (rect.y..<rect.maxY).flatMap { y in (rect.x..<rect.maxX).map { frame[$0, y] } }.filter { $0.style.foreground == here }
        #expect(cells.count == 1)
        // Stale: the mark stays, grey; the bar says how old.
        if case .fix(let gpsFix, _)? = state.places.here { state.places.here = .stale(gpsFix, seconds: 12) }
        frame = Renderer.render(state, width: 120, height: 40, options: SnapshotState.options)
        #expect(frame[rect.x + column, rect.y + row].style.foreground == MapTheme().neighbourBorder)
        #expect(frame.row(at: 39).contains("fix 12 s old"))
        // gpsd gone: no mark, the bar says so.
        state.places.here = .unavailable("gpsd at 127.0.0.1:2947 cannot be reached")
        frame = Renderer.render(state, width: 120, height: 40, options: SnapshotState.options)
        #expect(!frame.text.contains("◎ 3D") && frame.row(at: 39).contains("no gpsd"))
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

import AppModel
import AppRuntime
import EventLoop
import Foundation
import MapRender
import MapSources
import MapbookCore
import PortalFixtures
import TileFormats
import Testing
import TestScheduling

/// The map view through the whole program: a real package opened and drawn off the UI thread.
@Suite(.aheadOfQueuedTests) @UIActor struct MapViewProgramTests {
    func opened() async throws -> Program {
        await ProgramFixture.map(try PackageMapSource(path: SampleFixture.acadiaPackagePath), title: "Acadia",
                                 display: Display(width: 100, height: 32))
    }

    @Test func opensAtTheHomeViewAndDraws() async throws {
        let program = try await opened()
        defer { Task { await program.shutdown() } }
        let map = try #require(program.state.map)
        #expect(map.status == nil)
        #expect(map.image?.request.viewport == map.viewport)
        #expect(map.image?.frame.width == 100 && map.image?.frame.height == 30)
        #expect(map.layers == ["region", "state", "counties", "places"])
        #expect(!map.isDrawing)
    }

    /// Without a portal, `w` names the nearest of the bundled places, with its distance and direction.
    @Test func whatsHereWithoutThePortalIsTheNearestBundledPlace() async throws {
        let program = try await opened()
        defer { Task { await program.shutdown() } }
        program.send(.terminal(.key(.character("w"))))
        #expect(await ProgramFixture.settle(program) { $0.map?.whatsHere?.answer != nil })
        guard case .near(let sentence, nil)? = program.state.map?.whatsHere?.answer else {
            Issue.record("\(String(describing: program.state.map?.whatsHere))")
            return
        }
        #expect(sentence.hasPrefix("In ") || sentence.contains(" km "), "\(sentence)")
        #expect(sentence.hasSuffix("Maine, United States"), "\(sentence)")
    }

    /// In pixels on a terminal whose pictures cost less to show than to draw (kitty, sixel), a pan
    /// first shows the last picture moved and a zoom the last picture scaled, then the view's own;
    /// elsewhere (iTerm2), only its own.
    @Test(arguments: [true, false])
    func aPanOrZoomInPixelsShowsTheLastPictureFirst(atOnce: Bool) async throws {
        let pixels = PixelDrawing()
        pixels.use(cellSize: (8, 16))
        pixels.showsMovesAtOnce = atOnce
        let program = await ProgramFixture.map(try PackageMapSource(path: SampleFixture.acadiaPackagePath), title: "Acadia",
                                               display: Display(width: 100, height: 32), pixels: pixels)
        defer { Task { await program.shutdown() } }
        var before = try #require(program.state.map?.image)
        try #require(before.pixels?.width == 800, "not drawn in pixels (is Cairo installed?)")
        for key in [Key.right, .character("+")] {
            program.transcript = []
            program.send(.terminal(.key(key)))
            let latest = try #require(program.state.map?.viewport)
            let whole = await ProgramFixture.received(program, timeout: .seconds(60)) { event -> MapImage? in
                if case .map(.mapDrawn(_, let image)) = event, !image.isAtHand, image.request.viewport == latest { image } else { nil }
            }
            #expect(whole?.pixels != nil)
            let drawn = (program.transcript ?? []).compactMap { event -> MapImage? in if case .map(.mapDrawn(_, let image)) = event { image } else { nil } }
            #expect(drawn.map(\.isAtHand) == (atOnce ? [true, false] : [false]), "after \(key)")
            if atOnce, let shown = drawn.first?.pixels, let old = before.pixels {
                if key == .right {
                    // A quarter of the view to the right: the old picture's right three quarters, on the left.
                    #expect(shown.pixel(x: 0, y: 200) == old.pixel(x: 200, y: 200) && shown.pixel(x: 599, y: 400) == old.pixel(x: 799, y: 400))
                } else {
                    // Twice as near about the middle: a pixel half as far from the middle in the old picture.
                    let (cx, cy) = (old.width / 2, old.height / 2)
                    var alike = 0, compared = 0
                    for y in stride(from: 8, to: old.height - 8, by: 12) {
                        for x in stride(from: 8, to: old.width - 8, by: 12) {
                            let (p, q) = (shown.pixel(x: x, y: y), old.pixel(x: cx + (x - cx) / 2, y: cy + (y - cy) / 2))
                            compared += 1
                            if max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b))) <= 16 { alike += 1 }
                        }
                    }
                    #expect(Double(alike) >= Double(compared) * 0.9 && drawn.first?.picture.names.labels.isEmpty == true, "\(alike) of \(compared)")
                }
            }
            before = try #require(whole)
        }
    }

    @Test func aBurstOfKeysEndsWithThePictureOfTheLatestView() async throws {
        let program = try await opened()
        defer { Task { await program.shutdown() } }
        for _ in 0..<40 { program.send(.terminal(.key(.right))) }
        for _ in 0..<3 { program.send(.terminal(.key(.character("+")))) }
        let latest = try #require(program.state.map?.viewport)
        #expect(await ProgramFixture.settle(program, until: ProgramFixture.mapDrawn))
        #expect(program.state.map?.image?.request.viewport == latest)
    }

    @Test func modesLayersAndLeaving() async throws {
        let program = try await opened()
        defer { Task { await program.shutdown() } }
        program.send(.terminal(.key(.character("c"))))
        #expect(await ProgramFixture.settle(program) { $0.map?.image?.request.mode == .blocks && !$0.map!.isDrawing })
        program.send(.terminal(.key(.character("L"))))
        program.send(.terminal(.key(.down)))
        program.send(.terminal(.key(.character(" "))))
        #expect(await ProgramFixture.settle(program) { $0.map?.image?.request.hiddenLayers == ["state"] })
        program.send(.terminal(.key(.character("b"))))
        #expect(program.state.message == "This map has no bookmarks.")
        program.send(.terminal(.key(.escape)))
        program.send(.terminal(.key(.escape)))
        #expect(program.state.handoff.isQuitting, "leaving a file's map quits mapbook open")
    }

    @Test func layerNamesFromAPackageAreSanitizedAndStillHideTheirLayer() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-hostile-names-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("3/2"), withIntermediateDirectories: true)
        let hostile = "roads\u{1B}]0;pwned\u{07}\u{1B}[31m"
        var builder = MVTLayerBuilder(name: hostile)
        builder.add(type: .lineString, geometry: MVTGeometry(points: [MVTPoint(x: 0, y: 0), MVTPoint(x: 4096, y: 4096)], partEnds: [2]),
                    properties: [])
        try Deflate.deflate(MVTTile(layers: [builder.layer]).encoded()).write(to: root.appendingPathComponent("3/2/3.pbf"))

        let program = await ProgramFixture.map(try TileFolderSource(path: root.path), title: "hostile", display: Display(width: 60, height: 22))
        defer { Task { await program.shutdown() } }
        let shown = try #require(program.state.map?.layers.first)
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "no control characters reach the list")
        program.send(.terminal(.key(.character("L"))))
        program.send(.terminal(.key(.character(" "))))
        #expect(await ProgramFixture.settle(program) { $0.map?.image?.request.hiddenLayers == [hostile] },
                "the renderer hides the package's own layer")
    }
}

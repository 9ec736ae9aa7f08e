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

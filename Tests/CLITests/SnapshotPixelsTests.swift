import Foundation
import SharedTestData
import Testing
import TileFormats

/// `mapbook snapshot --png/--kitty/--sixel`: the view in pixels, decoded again here.
@Suite("mapbook snapshot in pixels", .enabled(if: SharedData.available, SharedData.skipMessage))
struct SnapshotPixelsTests {
    static let usa = SharedData.url("raster/tpkx/Usa.tpkx").path
    static let germany = SharedData.url("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk").path

    @Test func aPNGOfTheViewIsItsCellsTimesTheCellSize() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-snapshot-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.runAsync(["snapshot", "--file", Self.germany, "--zoom", "7", "--size", "60x20", "--cell-size", "9x18",
                                             "--png", file.path])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let image = try RasterImage(decoding: Data(contentsOf: file))
        #expect(image.width == 540 && image.height == 360)
        // A vector basemap fills the view: no pixel is left transparent, and it has many colours.
        var colours = Set<UInt32>()
        for y in stride(from: 0, to: image.height, by: 3) {
            for x in stride(from: 0, to: image.width, by: 3) {
                let p = image.pixel(x: x, y: y)
                #expect(p.a == 255)
                colours.insert(UInt32(p.r) << 16 | UInt32(p.g) << 8 | UInt32(p.b))
            }
        }
        #expect(colours.count > 50)
    }

    @Test func kittyAndSixelGoToStandardOutput() async throws {
        let kitty = try await CLI.runAsync(["snapshot", "--file", Self.usa, "--zoom", "5", "--center=-95,38", "--size", "20x6", "--kitty"])
        #expect(kitty.status == 0, "\(kitty.stderr)")
        #expect(kitty.output.starts(with: Array("\u{1B}_Ga=T,f=24,o=z,s=160,v=96,".utf8)))
        let sixel = try await CLI.runAsync(["snapshot", "--file", Self.usa, "--zoom", "5", "--center=-95,38", "--size", "20x6", "--sixel"])
        #expect(sixel.status == 0, "\(sixel.stderr)")
        #expect(sixel.output.starts(with: [0x1B, 0x50]))
    }

    @Test func badPixelOptionsAreUsageErrors() async throws {
        for arguments in [["--png", "x.png", "--ansi"], ["--kitty", "--sixel"], ["--png", "x.png", "--cell-size", "2x2"],
                          ["--png", "x.png", "--cell-size", "8by16"]] {
            let result = try await CLI.runAsync(["snapshot", "--file", Self.usa] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count <= 3)
        }
        // A folder that cannot be written to: one sentence, no stray file.
        let result = try await CLI.runAsync(["snapshot", "--file", Self.usa, "--size", "20x6", "--png", "/nonexistent-folder/map.png"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("map.png"), "\(result.stderr)")
    }
}

import Foundation
import SharedTestData
import Testing

/// The real files in local coordinate systems drawn as a user sees them, at 120×40: the NAD27 UTM
/// tile package resampled into the view, the State Plane geodatabase with its address points and
/// its annotation.
@Suite("snapshot of real files in local coordinate systems", .enabled(if: SharedData.available, SharedData.skipMessage))
struct RealProjectionCommandTests {
    @Test func theUTMTilePackageIsDrawn() async throws {
        let file = SharedData.url("real/ios_JoshuaTree.tpk").path
        let result = try await CLI.runAsync(["snapshot", "--file", file, "--size", "120x40", "--mode", "blocks", "--ansi"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 40)
        // The park's map in its many colours, not the no-data grey alone.
        let colours = Set(result.stdout.matches(of: /[34]8;5;(\d+)/).map { Int($0.1)! })
        #expect(colours.count >= 12, "\(colours)")
    }

    @Test func theStatePlaneGeodatabaseIsDrawnWithItsAnnotation() async throws {
        let file = SharedData.url("real/ios_loudoun_anno.geodatabase").path
        let result = try await CLI.runAsync(["snapshot", "--file", file, "--size", "120x40"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout.contains("●"), "the address points")
        // The parcel lines' annotation: their lengths in feet, as ArcGIS placed them.
        #expect(result.stdout.contains(/\d{2,3}\.\d{1,2}/), "\(result.stdout)")
    }
}

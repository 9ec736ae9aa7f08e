import Foundation
import GPSFixtures
import MapbookCore
import Testing

/// `mapbook tracks` against a real gpsd (gpsfake replaying a walk in Bar Harbor), its GPX and
/// GeoJSON read back by GDAL, a reader we did not write.
@Suite("mapbook tracks", .enabled(if: GPSFake.available, "needs gpsd and gpsfake (scripts/setup installs gpsd and gpsd-clients)"),
       .timeLimit(.minutes(2)))
struct TracksCommandTests {
    @Test func aWalkRecordedHeadlessIsExportedAsGDALReadsIt() async throws {
        let gps = try GPSFake(sentences: GPSFake.walk(seconds: 60, step: 0.0002))
        defer { gps.stop() }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-tracks-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let environment = ["GPSD_HOST": "127.0.0.1:\(gps.port)"]
        // gpsd takes a moment to start under gpsfake: recording begins once it gives a fix.
        #expect(try await CLI.runAsync(["where", "--wait", "20"], environment: environment).status == 0)
        let recorded = try await CLI.runAsync(["tracks", "record", "--seconds", "6", "--name", "Bar Harbor <walk>", "--json", "--data-dir", data],
                                              environment: environment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let summary = try JSONValue(parsing: Data(recorded.stdout.utf8))
        let count = try #require(summary["points"]?.double.map(Int.init))
        // gpsfake plays a second of the walk each 0.6 s, about 27 m apart: every one is kept.
        #expect(count >= 3, "\(recorded.stdout)")
        let id = try #require(summary["id"]?.string)

        let listed = try await CLI.runAsync(["tracks", "list", "--json", "--data-dir", data])
        #expect(try JSONValue(parsing: Data(listed.stdout.utf8))["tracks"]?[0]?["points"]?.double == Double(count))

        let gpx = data + "/walk.gpx", geojson = data + "/walk.geojson"
        #expect(try await CLI.runAsync(["tracks", "export", String(id.prefix(10)), "-o", gpx, "--data-dir", data]).status == 0)
        #expect(try await CLI.runAsync(["tracks", "export", id, "--format", "geojson", "-o", geojson, "--data-dir", data]).status == 0)
        guard GDAL.available else { return }
        let read = try GDAL.run("""
            import sys, json
            from osgeo import ogr
            gpx = ogr.Open(sys.argv[1]); points = gpx.GetLayerByName('track_points')
            first = points.GetNextFeature()
            last = first
            for feature in points: last = feature
            tracks = gpx.GetLayerByName('tracks'); track = tracks.GetNextFeature()
            geojson = ogr.Open(sys.argv[2]); feature = geojson.GetLayer(0).GetNextFeature(); line = feature.GetGeometryRef()
            print(json.dumps({'points': points.GetFeatureCount(), 'name': track.GetField('name'),
                              'first': [first.GetGeometryRef().GetX(), first.GetGeometryRef().GetY()], 'time': last.GetField('time'),
                              'vertices': line.GetPointCount()}))
            """, [gpx, geojson])
        #expect(read["points"]?.double == Double(count) && read["vertices"]?.double == Double(count), "\(read)")
        #expect(read["name"]?.string == "Bar Harbor <walk>")
        let first = read["first"]?.array.compactMap { $0.double } ?? []
        try #require(first.count == 2, "\(read)")
        #expect(abs(first[0] + 68.2039) < 0.02 && abs(first[1] - 44.3876) < 0.02, "\(first)")
        // The receiver's time (gpsd's first report, before the date is known, is timed by this machine).
        #expect(read["time"]?.string?.hasPrefix("2026/06/01 14:") == true, "\(read)")
    }

    /// gpsd that cannot be reached: no point, no empty track left behind, kind noFix; an id that is
    /// no track's is said.
    @Test func nothingRecordedLeavesNoTrack() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-tracks-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let result = try await CLI.runAsync(["tracks", "record", "--seconds", "2", "--data-dir", data], environment: ["GPSD_HOST": "127.0.0.1:1"])
        #expect(result.status == 1 && result.stderr.contains("No point recorded from gpsd at 127.0.0.1:1: gpsd at 127.0.0.1:1 cannot be reached; no track was kept."),
                "\(result.stderr)")
        let listed = try await CLI.runAsync(["tracks", "list", "--data-dir", data])
        #expect(listed.stdout.hasPrefix("No tracks yet"))
        let missing = try await CLI.runAsync(["tracks", "export", "nope", "--data-dir", data])
        #expect(missing.status != 0 && missing.stderr.contains("No track has the id “nope”"), "\(missing.stderr)")
    }
}

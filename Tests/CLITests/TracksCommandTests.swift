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

    /// A receiver at 10 Hz on I-95-like speed (50 knots toward 35°), garbage after each report (a bad
    /// checksum, a latitude of 91, NaN and 1e308, binary junk, a 10 KB line): `where` says its speed
    /// and heading, and the track keeps a point a second of the receiver's time, every one on the road.
    @Test func aTenHertzReceiverWithGarbageKeepsAPointASecond() async throws {
        // Eight sentences a tenth of a second, one each 10 ms as gpsfake plays them.
        let gps = try GPSFake(sentences: GPSFake.receiver(seconds: 100, hz: 10, step: (0.0002, 0.00015), knots: 50, course: 35, garbage: true),
                              cycle: 0.01)
        defer { gps.stop() }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-tracks-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let environment = ["GPSD_HOST": "127.0.0.1:\(gps.port)"]
        // gpsfake (Python) replays at 100 sentences a second: beside the cold suite its first fix took over 20 s once.
        let here = try await CLI.runAsync(["where", "--wait", "90", "--json"], environment: environment)
        #expect(here.status == 0, "\(here.stderr)")
        let fix = try JSONValue(parsing: Data(here.stdout.utf8))
        #expect(abs((fix["speed"]?.double ?? 0) - 25.7) < 0.5 && abs((fix["track"]?.double ?? 0) - 35) < 0.5, "\(here.stdout)")
        let recorded = try await CLI.runAsync(["tracks", "record", "--seconds", "5", "--json", "--data-dir", data], environment: environment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let id = try #require(try JSONValue(parsing: Data(recorded.stdout.utf8))["id"]?.string)
        let exported = try await CLI.runAsync(["tracks", "export", id, "--format", "geojson", "--data-dir", data])
        let feature = try #require(try JSONValue(parsing: Data(exported.stdout.utf8))["features"]?[0])
        let coordinates = feature["geometry"]?["coordinates"]?.array ?? []
        let times = (feature["properties"]?["coordinateProperties"]?["times"]?.array ?? []).compactMap { $0.string }
            .compactMap { try? Date($0, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }
        #expect(coordinates.count >= 3 && times.count == coordinates.count, "\(exported.stdout.prefix(400))")
        // Receiver-timed points a second apart or more (the first may be timed by this machine).
        for (a, b) in zip(times.dropFirst(), times.dropFirst(2)) { #expect(b.timeIntervalSince(a) >= 1, "\(a) → \(b)") }
        for coordinate in coordinates {
            let latitude = coordinate[1]?.double ?? 0, longitude = coordinate[0]?.double ?? 0
            #expect((44.38...44.41).contains(latitude) && (-68.21 ... -68.18).contains(longitude), "\(coordinate)")
        }
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

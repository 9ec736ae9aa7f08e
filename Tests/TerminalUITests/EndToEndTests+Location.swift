import Foundation
import GPSFixtures
import PortalFixtures
import Testing

/// The browser on a real gpsd: `gpsfake` replays a walk north-east from Bar Harbor's village green
/// that ends in a tunnel.
extension EndToEndTests {
    /// The centre's latitude in the map's footer ("44.3876°N 68.2039°W  z14.4 …").
    static func footerLatitude(_ screen: String) -> Double? {
        guard let range = screen.range(of: #"\d+\.\d{4}°N \d+\.\d{4}°W  z"#, options: .regularExpression) else { return nil }
        return Double(screen[range].prefix { $0 != "°" })
    }

    /// The go-to card's distance ("1.2 km"), as its first line says it.
    static func goToDistance(_ screen: String) -> String? {
        guard let match = screen.firstMatch(of: /│ ([0-9.,]+ (m|km|ft|mi)), bearing/) else { return nil }
        return String(match.1)
    }

    /// Where the moving mark (its heading north-east) is on the screen: row and column.
    static func mark(_ screen: String) -> (row: Int, column: Int)? {
        for (row, line) in screen.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let index = line.firstIndex(of: "↗") { return (row, line.distance(from: line.startIndex, to: index)) }
        }
        return nil
    }

    /// GPSD_HOST names gpsd, so it is watched from the start: the status bar says the fix. On the
    /// map, `f` centres on the position and again follows it (the centre moves north-east with the
    /// walk); a pan stops following (the centre stays, the mark walks on); in the tunnel the bar
    /// says there is no fix. On the way, `g`'s card follows the walker and directions start from
    /// the position; a track recorded meanwhile is read back by GDAL.
    @Test(.enabled(if: tmuxAvailable && GPSFake.available, "needs tmux, gpsd and gpsfake (scripts/setup installs them)"),
          .timeLimit(.minutes(3)))
    func theMarkFollowsAWalkInBarHarborAndTheTunnelLosesTheFix() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        // 0.0002° a second (about 27 m) for 100 s with a fix, then 15 s in the tunnel; gpsfake
        // plays a second of it each 0.6 s, from when its gpsd first answers.
        let gps = try GPSFake(sentences: GPSFake.walk(seconds: 115, step: 0.0002, fixFor: 100))
        defer { gps.stop() }
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        try tmux.start("GPSD_HOST=127.0.0.1:\(gps.port) " + Self.browseCommand(portal))
        _ = try await tmux.waitFor("6 map areas", timeout: 30)
        try await tmux.waitUntil("the fix in the status bar", timeout: 30) { $0.contains("◎ 3D ±") || $0.contains("◎ 2D ±") }

        // Acadia's map (online): `f` centres on the walker, near the green.
        tmux.send("j")
        _ = try await tmux.waitFor("2/7")
        tmux.send("m")
        _ = try await tmux.waitFor("Acadia › Map", timeout: 30)
        tmux.send("+", "+", "+")
        // A track recorded from here on.
        tmux.send("T")
        _ = try await tmux.waitFor("Recording a track")
        tmux.send("f")
        var screen = try await tmux.waitFor("Centred on this device's position")
        let centred = try #require(Self.footerLatitude(screen), "\(screen)")
        #expect(abs(centred - 44.39) < 0.02, "\(screen)")

        // Again: following; the centre goes north with the walk.
        tmux.send("f")
        _ = try await tmux.waitFor("Following this device's position")
        screen = try await tmux.waitUntil("the centre to move north with the walk", timeout: 20) { screen in
            (Self.footerLatitude(screen) ?? 0) > centred + 0.0005
        }
        // A pan stops following: the centre stays where it was panned, the mark walks on.
        tmux.send("h")
        screen = try await tmux.waitUntil("the pan drawn, the mark in view") { Self.mark($0) != nil && Self.footerLatitude($0) != nil }
        let panned = try #require(Self.footerLatitude(screen)), before = try #require(Self.mark(screen))
        let after = try await tmux.waitUntil("the mark to walk on", timeout: 20) { screen in
            guard let mark = Self.mark(screen) else { return false }
            return mark.row < before.row || mark.column > before.column
        }
        #expect(Self.footerLatitude(after) == panned, "the view stays where it was panned")

        // `g`: the go-to card to the centre, its distance worked out again as the walker moves.
        tmux.send("g")
        screen = try await tmux.waitFor("Go to ")
        let distance = try #require(Self.goToDistance(screen), "\(screen)")
        try await tmux.waitUntil("the distance to change from \(distance)", timeout: 20) { Self.goToDistance($0).map { $0 != distance } ?? false }
        // Directions to the centre from here: Enter alone starts them at the position.
        tmux.send("Escape")
        tmux.send("t")
        _ = try await tmux.waitFor("Enter: from your position.")
        tmux.send("Enter")
        _ = try await tmux.waitFor("your position → ", timeout: 30)
        tmux.send("Escape")

        // The track ends, kept; GDAL reads its GPX with as many points as the browser said.
        tmux.send("T")
        screen = try await tmux.waitUntil("the track kept") { $0.contains("Track kept: ") }
        let kept = try #require(screen.firstMatch(of: /Track kept: (\d+) points?, .*\(mapbook tracks export ([0-9-]+)\)/), "\(screen)")

        // The tunnel: no fix, said as such; the mark goes.
        screen = try await tmux.waitFor("◎ no fix", timeout: 60)
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")

        let gpx = tmux.library.appendingPathComponent("walk.gpx").path
        tmux.respawn("mapbook tracks export \(kept.2) -o \(gpx)", fullScreen: false)
        _ = try await tmux.waitFor("[exit 0]")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ogrinfo") else { return }
        let ogrinfo = Process()
        ogrinfo.executableURL = URL(fileURLWithPath: "/usr/bin/ogrinfo")
        ogrinfo.arguments = ["-ro", "-so", gpx, "track_points"]
        let out = Pipe()
        ogrinfo.standardOutput = out
        ogrinfo.standardError = FileHandle.nullDevice
        try ogrinfo.run()
        let summary = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ogrinfo.waitUntilExit()
        #expect(summary.contains("Feature Count: \(kept.1)\n"), "\(summary)")
        #expect(Int(kept.1) ?? 0 >= 3, "\(kept.1) points")
    }
}

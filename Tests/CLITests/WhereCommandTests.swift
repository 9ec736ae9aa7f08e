import Foundation
import Testing

/// `mapbook where` against a real gpsd: `gpsfake` (Debian's gpsd-clients) replays NMEA logs written
/// here — a walk in Bar Harbor, a receiver in a tunnel — to gpsd on a private port.
@Suite("mapbook where", .enabled(if: GPSFake.available, "needs gpsd and gpsfake (scripts/setup installs gpsd and gpsd-clients)"),
       .timeLimit(.minutes(2)))
struct WhereCommandTests {
    @Test func aWalkInBarHarborIsWhereTheReceiverSays() async throws {
        let gps = try GPSFake(sentences: GPSFake.walk(fix: true))
        defer { gps.stop() }
        let result = try await CLI.runAsync(["where", "--json", "--wait", "20"], environment: ["GPSD_HOST": "127.0.0.1:\(gps.port)"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let longitude = try #require(json["longitude"] as? Double), latitude = try #require(json["latitude"] as? Double)
        #expect(abs(longitude + 68.2039) < 0.002 && abs(latitude - 44.3876) < 0.002, "\(json)")
        // The first fix gpsd reports may come from RMC alone, before GGA's height: 2D, then 3D.
        #expect(["2D", "3D"].contains(json["status"] as? String ?? ""), "\(json)")
        let text = try await CLI.runAsync(["where", "--wait", "20"], environment: ["GPSD_HOST": "127.0.0.1:\(gps.port)"])
        #expect(text.stdout.hasPrefix("-68.20") && text.stdout.contains("D fix"), "\(text.stdout)")
    }

    @Test func aReceiverInATunnelHasNoFixAndSaysSo() async throws {
        let gps = try GPSFake(sentences: GPSFake.walk(fix: false))
        defer { gps.stop() }
        let result = try await CLI.runAsync(["where", "--wait", "4"], environment: ["GPSD_HOST": "127.0.0.1:\(gps.port)"])
        #expect(result.status == 1 && result.stderr.contains("No fix from gpsd at 127.0.0.1:\(gps.port) within 4 s: "), "\(result.stderr)")
        #expect(result.stderr.contains("no fix") || result.stderr.contains("looking for a receiver"), "\(result.stderr)")
    }
}

/// gpsd fed by `gpsfake` on a free port, replaying a log over and over until stopped.
final class GPSFake: @unchecked Sendable {
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake") && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")
    }

    let port: Int
    private let process = Process()
    private let folder: URL

    init(sentences: [String]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-gpsfake-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("receiver.nmea")
        try Data((sentences.joined(separator: "\r\n") + "\r\n").utf8).write(to: log)
        port = Int.random(in: 30_000...60_000)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
        // -q quiet, -P its port, -c 0.2 s between sentences: replayed until killed.
        process.arguments = ["-q", "-P", String(port), "-c", "0.2", log.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }


    /// gpsfake and its gpsd (its process group) killed: they inherit this process's blocked
    /// signals, so a SIGTERM would wait forever.
    func stop() {
        let pid = process.processIdentifier
        kill(-pid, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: "/tmp/gpsfake-\(pid).sock")
        try? FileManager.default.removeItem(at: folder)
    }

    /// Thirty seconds of a walk north-east from Bar Harbor's village green: RMC, GGA and GSA a
    /// second, with a fix, or (in a tunnel) the same sentences saying there is none.
    static func walk(fix: Bool) -> [String] {
        var sentences: [String] = []
        var latitude = 44.3876, longitude = -68.2039
        for second in 0..<30 {
            let time = String(format: "1400%02d.00", second)
            let lat = String(format: "%02d%07.4f", Int(latitude), (latitude - Double(Int(latitude))) * 60)
            let lon = String(format: "%03d%07.4f", Int(-longitude), (-longitude - Double(Int(-longitude))) * 60)
            let body = fix
                ? ["GPRMC,\(time),A,\(lat),N,\(lon),W,2.5,45.0,010626,,,A", "GPGGA,\(time),\(lat),N,\(lon),W,1,08,0.9,15.0,M,-30.0,M,,",
                   "GPGSA,A,3,01,03,06,09,12,17,19,22,,,,,1.5,0.9,1.2"]
                : ["GPRMC,\(time),V,,,,,,,010626,,,N", "GPGGA,\(time),,,,,0,00,99.9,,M,,M,,", "GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9"]
            sentences += body.map { "$\($0)*" + String(format: "%02X", $0.utf8.reduce(0, ^)) }
            latitude += 0.00003; longitude += 0.00003
        }
        return sentences
    }
}

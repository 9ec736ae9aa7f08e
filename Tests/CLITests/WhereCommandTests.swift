import Foundation
import GPSFixtures
import Testing

/// `mapbook where` against a real gpsd: `gpsfake` (Debian's gpsd-clients) replays NMEA logs written
/// here — a walk in Bar Harbor, a receiver in a tunnel — to gpsd on a private port.
@Suite("mapbook where", .enabled(if: GPSFake.available, "needs gpsd and gpsfake (scripts/setup installs gpsd and gpsd-clients)"),
       .timeLimit(.minutes(2)))
struct WhereCommandTests {
    @Test func aWalkInBarHarborIsWhereTheReceiverSays() async throws {
        let gps = try GPSFake(sentences: GPSFake.walk())
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
        let gps = try GPSFake(sentences: GPSFake.walk(fixFor: 0))
        defer { gps.stop() }
        let result = try await CLI.runAsync(["where", "--wait", "4"], environment: ["GPSD_HOST": "127.0.0.1:\(gps.port)"])
        #expect(result.status == 1 && result.stderr.contains("No fix from gpsd at 127.0.0.1:\(gps.port) within 4 s: "), "\(result.stderr)")
        #expect(result.stderr.contains("no fix") || result.stderr.contains("looking for a receiver"), "\(result.stderr)")
    }
}

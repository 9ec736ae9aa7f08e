import Foundation
import GPSFixtures
import PortalFixtures
import Testing

/// `--plain` with gpsd (gpsfake replaying a walk that ends in a tunnel): the location's state said
/// when it changes, the position at most every 30 seconds, `where` at once, `track` records.
@Suite("mapbook --plain: where am I", .enabled(if: GPSFake.available, "needs gpsd and gpsfake (scripts/setup installs gpsd and gpsd-clients)"),
       .timeLimit(.minutes(2)))
struct PlainLocationTests {
    @Test func theStateIsSaidWhenItChangesAndThePositionNowAndThen() async throws {
        // 40 s of walking with a fix (24 s as gpsfake plays it), then the tunnel — long enough that gpsfake,
        // which replays its log over and over, does not come back to the fix before the test ends (beside
        // the cold suite it once did, and the fix was said twice).
        let gps = try GPSFake(sentences: GPSFake.walk(seconds: 300, step: 0.0002, fixFor: 40))
        defer { gps.stop() }
        let server = try SampleFixture.start()
        defer { server.stop() }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-plain-gps-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let session = try PlainModeTests.Session(["--plain", "--portal", server.baseURL.absoluteString, "--data-dir", data],
                                                 environment: ["GPSD_HOST": "127.0.0.1:\(gps.port)"])
        defer { if session.process.isRunning { session.process.terminate() } }
        var at = try await session.waitFor("7. Bangor")
        at = try await session.waitFor("Location: 3D fix.", after: 0)
        let position = try await session.waitFor("Your position: 44.", after: 0)
        session.send("track")
        at = try await session.waitFor("Recording a track", after: at)
        session.send("where")
        at = try await session.waitFor("Your position: 44.", after: position)
        // The tunnel: said once, as a state.
        at = try await session.waitFor("Location: no fix.", after: at, timeout: 40)
        session.send("track")
        at = try await session.waitFor("Track kept: ", after: at)
        session.send("quit")
        await session.process.exited()
        let said = session.printed
        // The position said by itself once in the first 30 s (and once asked), not with each report.
        #expect(said.components(separatedBy: "Your position: ").count - 1 == 2, "\(said)")
        #expect(said.components(separatedBy: "Location: 3D fix.").count - 1 == 1, "\(said)")
        #expect(!said.contains("°"), "units said in words: \(said)")
    }
}

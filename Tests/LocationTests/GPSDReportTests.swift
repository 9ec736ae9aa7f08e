import Foundation
import Geometry
@testable import Location
import Testing

/// gpsd's JSON reports read, every number checked, and the status a connection makes of them.
@Suite("gpsd reports")
struct GPSDReportTests {
    func report(_ text: String) -> GPSDReport { GPSDReport(line: Data(text.utf8)) }

    @Test func aTPVIsAFixWithItsAccuracyHeadingAndTime() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/2","mode":3,"time":"2026-06-01T14:00:22.000Z","lat":44.38826,"lon":-68.20324,"#
            + #""altMSL":15.0,"track":45.0,"speed":1.286,"eph":17.1}"#
        guard case .position(let fix) = report(line) else { Issue.record("not a fix"); return }
        #expect(fix.dimension == .threeD && fix.position == GeoPoint(longitude: -68.20324, latitude: 44.38826))
        #expect(fix.altitude == 15 && fix.accuracy == 17.1 && fix.track == 45 && fix.speed == 1.286)
        #expect(fix.time == Date(timeIntervalSince1970: 1_780_322_422))
        // A 2D fix has no height, whatever the report says.
        guard case .position(let flat) = report(#"{"class":"TPV","mode":2,"lat":1,"lon":2,"alt":99}"#) else { Issue.record("not a fix"); return }
        #expect(flat.dimension == .twoD && flat.altitude == nil)
    }

    @Test func positionsThatDoNotCheckOutAreNoFix() {
        for line in [#"{"class":"TPV","mode":1}"#, #"{"class":"TPV","mode":0,"lat":44,"lon":-68}"#,
                     #"{"class":"TPV","mode":3,"lat":91,"lon":-68}"#, #"{"class":"TPV","mode":3,"lat":44,"lon":1e308}"#,
                     #"{"class":"TPV","mode":3,"lat":44}"#, #"{"class":"TPV","mode":7,"lat":44,"lon":-68}"#] {
            #expect(report(line) == .noFix, "\(line)")
        }
        // Numbers around a good position that do not check out are left out, the position kept.
        guard case .position(let fix) = report(#"{"class":"TPV","mode":3,"lat":44,"lon":-68,"eph":-4,"track":1e308,"speed":-1}"#) else {
            Issue.record("the position was lost"); return
        }
        #expect(fix.accuracy == nil && fix.track == nil && fix.speed == nil)
    }

    @Test func satellitesAreCountedEitherWay() {
        #expect(report(#"{"class":"SKY","nSat":12,"uSat":8}"#) == .satellites(Satellites(used: 8, visible: 12)))
        #expect(report(#"{"class":"SKY","satellites":[{"PRN":1,"used":true},{"PRN":3,"used":false},{"PRN":6,"used":true}]}"#)
                == .satellites(Satellites(used: 2, visible: 3)))
    }

    @Test func anythingElseIsNothing() {
        for line in [#"{"class":"VERSION","release":"3.22"}"#, "not json", "", "$GPRMC,garbage*00", #"{"class":"TPV","mode":3,"lat":NaN}"#] {
            #expect(report(line) == .other, "\(line)")
        }
        let huge = #"{"class":"TPV","mode":3,"lat":44,"lon":-68,"x":""# + String(repeating: "x", count: 100_000) + #""}"#
        #expect(report(huge) == .other, "a line past the longest is not read")
    }

    @Test func addressesAreHostAndPort() {
        #expect(GPSDAddress("127.0.0.1:2948") == GPSDAddress("127.0.0.1:2948") && GPSDAddress("127.0.0.1:2948")?.port == 2948)
        #expect(GPSDAddress("gps.local")?.port == 2947 && GPSDAddress("[::1]:3000")?.host == "::1" && GPSDAddress("[::1]:3000")?.description == "[::1]:3000")
        for bad in ["", "host:0", "host:99999", "host:x", "a b", "[::1", "host;rm"] { #expect(GPSDAddress(bad) == nil, "\(bad)") }
    }

    @Test func theStatusFollowsTheReportsAndTime() {
        var state = SessionState(staleAfter: 5)
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(state.status == .searching)
        var changed = state.take(.noFix, now: start)
        #expect(changed && state.status == .noFix(nil))
        var first = GPSFix(dimension: .threeD, position: GeoPoint(longitude: -68.2, latitude: 44.38), accuracy: 5, time: Date(timeIntervalSince1970: 100))
        changed = state.take(.position(first), now: start)
        // Kept with when it was heard, by this machine's clock.
        first.heard = start
        #expect(changed && state.status == .fix(first, nil))
        changed = state.take(.satellites(Satellites(used: 8, visible: 12)), now: start)
        #expect(changed && state.status == .fix(first, Satellites(used: 8, visible: 12)))
        // Time going backwards: the older report is not taken.
        var older = first
        older.position = GeoPoint(longitude: 0, latitude: 0); older.time = Date(timeIntervalSince1970: 50)
        changed = state.take(.position(older), now: start)
        #expect(!changed && state.status.position == first.position)
        // Quiet for 4 s: still a fix; for 6 s: stale, and its age counts on.
        changed = state.tick(now: start.addingTimeInterval(4))
        #expect(!changed)
        changed = state.tick(now: start.addingTimeInterval(6))
        #expect(changed && state.status == .stale(first, seconds: 6))
        changed = state.tick(now: start.addingTimeInterval(7))
        #expect(changed && state.status == .stale(first, seconds: 7))
        #expect(state.status.summary == "last fix 7 s ago" && state.status.position == first.position)
        #expect(LocationStatus.fix(first, Satellites(used: 8, visible: 12)).summary == "3D fix ±5.0 m, 8 of 12 satellites")
    }
}

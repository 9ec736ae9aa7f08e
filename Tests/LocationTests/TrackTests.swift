import Foundation
import Geometry
import MapbookCore
import Testing
@testable import Location

/// Which fixes a track keeps, and the track as GPX 1.1 and GeoJSON.
@Suite struct TrackTests {
    static let start = GeoPoint(longitude: -68.2039, latitude: 44.3876)
    static let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    static func fix(_ point: GeoPoint, at seconds: Double, accuracy: Double = 5) -> GPSFix {
        GPSFix(dimension: .threeD, position: point, altitude: 15, accuracy: accuracy, time: t0.addingTimeInterval(seconds))
    }

    static func walked(_ meters: Double) -> GeoPoint { Geodesy.destination(from: start, bearing: 45, meters: meters) }

    @Test func aPointOnceMovedFarEnoughAndLongEnoughAfterTheLast() {
        var recorder = TrackRecorder()
        #expect((try? recorder.take(Self.fix(Self.start, at: 0), now: Self.t0).get()) != nil)
        // Standing still adds nothing; a step too soon neither.
        #expect(recorder.take(Self.fix(Self.walked(1), at: 10), now: Self.t0) == .failure(.tooSoonOrTooNear))
        #expect(recorder.take(Self.fix(Self.walked(8), at: 0.5), now: Self.t0) == .failure(.tooSoonOrTooNear))
        #expect((try? recorder.take(Self.fix(Self.walked(8), at: 2), now: Self.t0).get()) != nil)
        #expect(recorder.count == 2 && abs(recorder.length - 8) < 0.01)
        // A poor fix is not kept; time going backwards neither.
        #expect(recorder.take(Self.fix(Self.walked(30), at: 5, accuracy: 400), now: Self.t0) == .failure(.tooInaccurate(400)))
        #expect(recorder.take(Self.fix(Self.walked(30), at: 1), now: Self.t0) == .failure(.older))
    }

    /// gpsd's first report may come before the receiver gave the date (no time): timed when it was
    /// heard, by this machine's clock; the receiver's times after it are not "older" for that.
    @Test func aFixWithoutTheReceiversTimeDoesNotStopTheTrack() {
        var recorder = TrackRecorder()
        var first = Self.fix(Self.start, at: 0)
        first.time = nil
        first.heard = Date(timeIntervalSince1970: 1_800_000_000)
        #expect((try? recorder.take(first, now: .distantPast).get())?.time == first.heard)
        #expect((try? recorder.take(Self.fix(Self.walked(10), at: 1), now: .distantPast).get()) != nil)
        #expect((try? recorder.take(Self.fix(Self.walked(20), at: 2), now: .distantPast).get()) != nil)
        #expect(recorder.take(Self.fix(Self.walked(30), at: 1.5), now: .distantPast) == .failure(.older))
    }

    /// 100 reports a second for a minute of walking at 1.4 m/s: a point every few metres, not 6,000.
    @Test func aReceiverAt100HzDoesNotFillTheTrack() {
        var recorder = TrackRecorder()
        for tick in 0..<6_000 {
            let seconds = Double(tick) / 100
            _ = recorder.take(Self.fix(Self.walked(seconds * 1.4), at: seconds), now: Self.t0)
        }
        #expect((15...61).contains(recorder.count), "\(recorder.count)")
        #expect(abs(recorder.length - 84) < 6, "\(recorder.length)")
    }

    /// A fix 1,000 km off is left out, and the walk goes on; a receiver that insists three times
    /// running has moved (a ferry, a flight): the track goes on from there, without the jump's length.
    @Test func aJumpIsLeftOutUnlessTheReceiverInsists() {
        var recorder = TrackRecorder()
        _ = recorder.take(Self.fix(Self.start, at: 0), now: Self.t0)
        let far = Geodesy.destination(from: Self.start, bearing: 200, meters: 1_000_000)
        guard case .failure(.jump) = recorder.take(Self.fix(far, at: 2), now: Self.t0) else { Issue.record("the jump was kept"); return }
        #expect((try? recorder.take(Self.fix(Self.walked(10), at: 4), now: Self.t0).get()) != nil)
        for second in [6.0, 8] {
            guard case .failure(.jump) = recorder.take(Self.fix(far, at: second), now: Self.t0) else { Issue.record("kept at \(second)"); return }
        }
        #expect((try? recorder.take(Self.fix(far, at: 10), now: Self.t0).get())?.position == far)
        #expect(recorder.count == 3 && abs(recorder.length - 10) < 0.01)
    }

    @Test func gpxAndGeoJSONCarryEveryPointWithItsTimeAndAccuracy() throws {
        let points = (0..<3).map { TrackPoint(position: Self.walked(Double($0) * 10), altitude: 15, accuracy: 4.5, time: Self.t0.addingTimeInterval(Double($0))) }
        let track = Track(id: "20260601-140000", name: "Walk <& \"home\">\u{7}", started: Self.t0, points: points)
        let gpx = track.gpx
        #expect(gpx.contains("<name>Walk &lt;&amp; &quot;home&quot;&gt;</name>") && !gpx.contains("\u{7}"))
        #expect(gpx.components(separatedBy: "<trkpt ").count == 4)
        #expect(gpx.contains(#"<trkpt lat="44.3876000" lon="-68.2039000"><ele>15.00</ele><time>2026-05-28T20:26:40.000Z</time>"#), "\(gpx)")
        #expect(gpx.contains("<mapbook:accuracy>4.5</mapbook:accuracy>"))
        let json = track.geoJSON
        let feature = try #require(json["features"]?[0])
        #expect(feature["geometry"]?["type"]?.string == "LineString" && feature["geometry"]?["coordinates"]?.array.count == 3)
        #expect(feature["properties"]?["coordinateProperties"]?["times"]?.array.count == 3)
        #expect(feature["properties"]?["coordinateProperties"]?["accuracy"]?[0]?.double == 4.5)
    }
}

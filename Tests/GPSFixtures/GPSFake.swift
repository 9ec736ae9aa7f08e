import Foundation

/// gpsd fed by `gpsfake` on a free port, replaying a log over and over until stopped.
public final class GPSFake: @unchecked Sendable {
    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake") && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")
    }

    public let port: Int
    private let process = Process()
    private let folder: URL

    public init(sentences: [String]) throws {
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
    public func stop() {
        let pid = process.processIdentifier
        kill(-pid, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: "/tmp/gpsfake-\(pid).sock")
        try? FileManager.default.removeItem(at: folder)
    }

    /// A walk north-east from Bar Harbor's village green, `step` degrees of latitude and longitude
    /// a second (RMC, GGA and GSA each second, 2.5 knots toward 45°), with a fix for its first
    /// `fixFor` seconds and then, as in a tunnel, the same sentences saying there is none.
    public static func walk(seconds: Int = 30, step: Double = 0.00003, fixFor: Int? = nil) -> [String] {
        var sentences: [String] = []
        var latitude = 44.3876, longitude = -68.2039
        for second in 0..<seconds {
            let time = String(format: "14%02d%02d.00", second / 60, second % 60)
            let lat = String(format: "%02d%07.4f", Int(latitude), (latitude - Double(Int(latitude))) * 60)
            let lon = String(format: "%03d%07.4f", Int(-longitude), (-longitude - Double(Int(-longitude))) * 60)
            let body = second < (fixFor ?? seconds)
                ? ["GPRMC,\(time),A,\(lat),N,\(lon),W,2.5,45.0,010626,,,A", "GPGGA,\(time),\(lat),N,\(lon),W,1,08,0.9,15.0,M,-30.0,M,,",
                   "GPGSA,A,3,01,03,06,09,12,17,19,22,,,,,1.5,0.9,1.2"]
                : ["GPRMC,\(time),V,,,,,,,010626,,,N", "GPGGA,\(time),,,,,0,00,99.9,,M,,M,,", "GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9"]
            sentences += body.map { "$\($0)*" + String(format: "%02X", $0.utf8.reduce(0, ^)) }
            latitude += step; longitude += step
        }
        return sentences
    }
}

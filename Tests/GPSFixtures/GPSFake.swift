import Foundation

/// gpsd fed by `gpsfake` on a free port, replaying a log over and over until stopped.
public final class GPSFake: @unchecked Sendable {
    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake") && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")
    }

    public private(set) var port = 0
    private var process = Process()
    private let folder: URL

    /// Starts gpsfake on a port the kernel has just given out, and returns once its gpsd listens
    /// (the replay starts with that first connection); a gpsd that does not come up in 15 s (a
    /// port taken meanwhile) is tried again on another port, twice.
    /// `cycle`: seconds between sentences as gpsfake plays them.
    public init(sentences: [String], cycle: Double = 0.2) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-gpsfake-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("receiver.nmea")
        try Data((sentences.joined(separator: "\r\n") + "\r\n").utf8).write(to: log)
        for _ in 0..<3 {
            port = Self.freePort()
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
            // -q quiet, -P its port, -c seconds between sentences: replayed until killed.
            process.arguments = ["-q", "-P", String(port), "-c", String(cycle), log.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.listens(port, within: 15) { return }
            stopProcess()
        }
        throw GPSFakeDidNotStart()
    }

    struct GPSFakeDidNotStart: Error, CustomStringConvertible {
        var description: String { "gpsfake's gpsd did not come up on three ports in a row" }
    }

    /// A port nothing listens on now: the kernel's pick for a socket bound to port 0.
    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func listens(_ port: Int, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return true }
            usleep(100_000)
        }
        return false
    }


    /// gpsfake and its gpsd (its process group) killed: they inherit this process's blocked
    /// signals, so a SIGTERM would wait forever.
    public func stop() {
        stopProcess()
        try? FileManager.default.removeItem(at: folder)
    }

    private func stopProcess() {
        let pid = process.processIdentifier
        kill(-pid, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: "/tmp/gpsfake-\(pid).sock")
    }

    /// A walk north-east from Bar Harbor's village green, `step` degrees of latitude and longitude
    /// a second (RMC, GGA and GSA each second, 2.5 knots toward 45°), with a fix for its first
    /// `fixFor` seconds and then, as in a tunnel, the same sentences saying there is none.
    public static func walk(seconds: Int = 30, step: Double = 0.00003, fixFor: Int? = nil) -> [String] {
        receiver(seconds: seconds, step: (step, step), knots: 2.5, course: 45, fixFor: fixFor)
    }

    /// A receiver reporting `hz` times a second from Bar Harbor's green, moving `step` degrees
    /// (latitude, longitude) a second at `knots` toward `course`; with `garbage`, each report is
    /// followed by sentences gpsd and mapbook must shrug off (a bad checksum, a latitude of 91, a
    /// field that is no number, binary junk, a 10 KB line).
    public static func receiver(seconds: Int, hz: Int = 1, step: (Double, Double), knots: Double, course: Double, fixFor: Int? = nil,
                                garbage: Bool = false, start: (Double, Double) = (44.3876, -68.2039)) -> [String] {
        func sentence(_ body: String) -> String { "$\(body)*" + String(format: "%02X", body.utf8.reduce(0, ^)) }
        var sentences: [String] = []
        for tick in 0..<(seconds * hz) {
            let elapsed = Double(tick) / Double(hz)
            let latitude = start.0 + step.0 * elapsed, longitude = start.1 + step.1 * elapsed
            let whole = Int(elapsed)
            let time = String(format: "14%02d%02d.%02d", whole / 60 % 60, whole % 60, Int((elapsed - Double(whole)) * 100))
            let lat = String(format: "%02d%07.4f", Int(latitude), (latitude - Double(Int(latitude))) * 60)
            let lon = String(format: "%03d%07.4f", Int(-longitude), (-longitude - Double(Int(-longitude))) * 60)
            let body = Int(elapsed) < (fixFor ?? seconds)
                ? ["GPRMC,\(time),A,\(lat),N,\(lon),W,\(String(format: "%.1f", knots)),\(String(format: "%.1f", course)),010626,,,A",
                   "GPGGA,\(time),\(lat),N,\(lon),W,1,08,0.9,15.0,M,-30.0,M,,", "GPGSA,A,3,01,03,06,09,12,17,19,22,,,,,1.5,0.9,1.2"]
                : ["GPRMC,\(time),V,,,,,,,010626,,,N", "GPGGA,\(time),,,,,0,00,99.9,,M,,M,,", "GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9"]
            sentences += body.map(sentence)
            if garbage {
                sentences += ["$GPRMC,\(time),A,\(lat),N,\(lon),W,2.5,45.0,010626,,,A*00",
                              sentence("GPGGA,\(time),9100.0000,N,\(lon),W,1,08,0.9,15.0,M,-30.0,M,,"),
                              sentence("GPRMC,\(time),A,nan,N,inf,W,1e308,45.0,010626,,,A"),
                              "\u{01}\u{FF}\u{00}junk\u{7F}", "$GPGGA," + String(repeating: "A", count: 10_000)]
            }
        }
        return sentences
    }
}

import Foundation
import Geometry
import Glibc
@testable import Location
import Synchronization
import Testing

/// The watcher against a gpsd that misbehaves, on 127.0.0.1: a line that never ends, then a
/// good report; a gpsd that hangs up, and comes back.
@Suite("gpsd watcher", .timeLimit(.minutes(1)))
struct GPSDWatcherTests {
    /// A TCP server on a free port that answers each connection with `script` (given the
    /// connection's number), then closes it.
    final class FakeGPSD: Sendable {
        let port: Int
        private let listener: Int32

        init(_ script: @escaping @Sendable (Int) -> [Data]) throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
            listen(listener, 4)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
            port = Int(UInt16(bigEndian: address.sin_port))
            self.listener = listener
            Thread {
                var served = 0
                while true {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { return }
                    // The request for reports read first: a socket closed with it unread would be reset.
                    var request = [UInt8](repeating: 0, count: 256)
                    _ = recv(connection, &request, request.count, 0)
                    for chunk in script(served) {
                        _ = chunk.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        usleep(50_000)
                    }
                    served += 1
                    usleep(200_000)
                    close(connection)
                }
            }.start()
        }

        func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
    }

    static let tpv = Data((#"{"class":"TPV","mode":3,"lat":44.3876,"lon":-68.2039,"eph":4.2}"# + "\n").utf8)

    func watch(_ server: FakeGPSD, until wanted: @escaping @Sendable ([LocationStatus]) -> Bool) async -> [LocationStatus] {
        let seen = Mutex<[LocationStatus]>([])
        let watcher = GPSDWatcher(address: GPSDAddress("127.0.0.1:\(server.port)")!) { status in seen.withLock { $0.append(status) } }
        watcher.start()
        defer { watcher.stop() }
        for _ in 0..<200 where !wanted(seen.withLock { $0 }) { try? await Task.sleep(for: .milliseconds(50)) }
        return seen.withLock { $0 }
    }

    @Test func aLineThatNeverEndsIsSkippedAndTheNextReportRead() async throws {
        let server = try FakeGPSD { _ in
            [Data(#"{"class":"VERSION"}"#.utf8 + [0x0A]), Data(repeating: 0x61, count: 300_000), Data([0x0A]), Self.tpv]
        }
        defer { server.stop() }
        let seen = await watch(server) { $0.contains { if case .fix = $0 { true } else { false } } }
        #expect(seen.first == .searching)
        #expect(seen.contains { $0.position == GeoPoint(longitude: -68.2039, latitude: 44.3876) }, "\(seen)")
    }

    @Test func aGpsdThatHangsUpIsSaidAndConnectedToAgain() async throws {
        let server = try FakeGPSD { served in served == 0 ? [] : [Self.tpv] }
        defer { server.stop() }
        let seen = await watch(server) { $0.contains { if case .fix = $0 { true } else { false } } }
        #expect(seen.contains { if case .unavailable(let why) = $0 { why.contains("closed the connection") } else { false } }, "\(seen)")
        // Connected again, the report read (the fake closes each connection after it: unavailable again after).
        #expect(seen.drop { if case .unavailable = $0 { false } else { true } }.contains { $0.position != nil }, "\(seen)")
    }

    @Test func noGpsdIsUnavailableInWords() async {
        // A port nothing listens on: bound, then closed.
        let server = try? FakeGPSD { _ in [] }
        let port = server?.port ?? 1
        server?.stop()
        let status = await LocationSource.gpsd(GPSDAddress("127.0.0.1:\(port)")!).firstFix(within: .seconds(2))
        #expect(status == .unavailable("gpsd at 127.0.0.1:\(port) cannot be reached"))
    }
}

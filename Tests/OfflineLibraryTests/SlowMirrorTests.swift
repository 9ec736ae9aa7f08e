import ArcGISModel
import ArcGISPortal
import Foundation
import LibraryModel
import LoopbackHTTP
import MapbookCore
@testable import OfflineLibrary
import PortalFixtures
import SamplePortal
import TileFormats
import Testing
import TestScheduling

/// A mirror slower than it should be — package bytes or `mirror.json` trickling in a byte at a time —
/// is left for the portal once it shows itself slow, and not asked again in the same run; a mirror
/// that substitutes a package is caught by the portal's own bytes.
@Suite("A misbehaving fleet mirror", .aheadOfQueuedTests)
struct SlowMirrorTests {
    /// The folder staged from the fixture's portal with two areas, served by a server that drips
    /// what `drip` says a byte a second.
    static func mirror(of fixture: LibraryFixture, dripping drip: @escaping @Sendable (String) -> Bool = { _ in false }) async throws -> (LoopbackServer, String) {
        let folder = LibraryFixture.temporaryFolder() + "/mirror"
        let areas: Set<String> = [SampleFixture.bangor.id, SampleFixture.portlandID]
        _ = try await MirrorStage(client: fixture.client, directory: folder, content: .webMap(ItemID(SampleFixture.webMapID)!,
                                  .chosen { $0.filter { areas.contains($0.item.id.rawValue) } }), includePrivate: false, http: LibraryFixture.http()).run()
        let server = try LoopbackServer { request in
            let relative = request.path == "/mirror.json" ? "mirror.json"
                : request.path.hasSuffix("/data") ? String(request.path.dropFirst()) : String(request.path.dropFirst()) + "/item.json"
            guard let data = FileManager.default.contents(atPath: folder + "/" + relative) else { return .text("Not Found", status: 404) }
            var response = LoopbackResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: data)
            if drip(relative) { response.delivery.bytesPerSecond = 1 }
            return response
        }
        return (server, folder)
    }

    /// Downloads both areas through a library using the mirror (a kibibyte a second at least).
    static func downloadBoth(_ fixture: LibraryFixture, mirror: LoopbackServer) async throws -> [DownloadRecord] {
        let library = OfflineLibrary(root: fixture.root + "-device", portal: fixture.portal.baseURL, webMap: ItemID(SampleFixture.webMapID)!,
                                     mirror: Mirror(url: mirror.baseURL, http: LibraryFixture.http(), minimumRate: (1024, .seconds(1))))
        var records: [DownloadRecord] = []
        for id in [SampleFixture.bangor.id, SampleFixture.portlandID] {
            let queue = DownloadQueue(library: library, client: fixture.client, http: LibraryFixture.http())
            await queue.enqueue(try await fixture.area(id))
            let events = await LibraryFixture.events(of: queue, until: ItemID(id)!)
            records.append(try #require(events.record, "\(events)"))
        }
        return records
    }

    @Test(.timeLimit(.minutes(2))) func packagesDrippingFromTheMirrorComeFromThePortal() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let (server, _) = try await Self.mirror(of: fixture) { $0.hasSuffix("/data") }
        defer { server.stop() }
        let records = try await Self.downloadBoth(fixture, mirror: server)
        #expect(records.allSatisfy { $0.source == .portal })
        let first = try #require(records[0].packages.first?.mirrorProblem)
        #expect(first.hasPrefix("the mirror at 127.0.0.1:") && first.contains("sent less than 1.0 KiB/s for "), "\(first)")
        let second = try #require(records[1].packages.first?.mirrorProblem)
        #expect(second.contains("was left for the portal earlier ("), "\(second)")
        // Once given up, the mirror is not asked for the second area's bytes at all.
        #expect(server.requests.filter { $0.path.hasSuffix("/data") }.count == 1)
    }

    /// A copy of the same size with bytes changed inside a tile and both CRC-32s fixed, listed in
    /// `mirror.json` under its own SHA-256: the portal's zip directory differs, so the package comes
    /// from the portal; an honest copy is vouched for by the portal's directory.
    @Test func aSubstitutedPackageIsCaughtByThePortalsDirectory() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let (server, folder) = try await Self.mirror(of: fixture)
        defer { server.stop() }
        let portland = try await fixture.area(SampleFixture.portlandID)
        let package = folder + "/" + MirrorLayout.data(of: portland.packages[0].item.id)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: package))
        let zip = try ZipArchive(source: FileByteSource(path: package))
        let bundle = try #require(zip.entries.first { $0.name.hasSuffix(".bundle") && $0.size > 2_000 })
        let data = Int(try zip.source(of: bundle).start)
        for i in data + 1_000 ..< data + 1_032 { bytes[i] ^= 0x5A }
        let crc = Deflate.crc32(bytes[data ..< data + Int(bundle.size)])
        for header in [UInt32(0x0403_4B50), 0x0201_4B50] {
            let signature = withUnsafeBytes(of: header.littleEndian) { Data($0) }
            var from = bytes.startIndex
            while let found = bytes.range(of: signature, in: from..<bytes.endIndex) {
                let nameAt = found.lowerBound + (header == 0x0403_4B50 ? 30 : 46), field = header == 0x0403_4B50 ? 14 : 16
                if bytes[nameAt...].starts(with: Data(bundle.name.utf8)) {
                    bytes.replaceSubrange(found.lowerBound + field ..< found.lowerBound + field + 4, with: withUnsafeBytes(of: crc.littleEndian) { Data($0) })
                }
                from = found.upperBound
            }
        }
        try bytes.write(to: URL(fileURLWithPath: package))
        var index = try #require(try MirrorStage(client: fixture.client, directory: folder, content: .webMap(ItemID(SampleFixture.webMapID)!, .all),
                                                 includePrivate: false).currentIndex())
        var staged = try #require(index.webMaps.first)
        staged.files = staged.files.map { file in
            var file = file
            if file.path == MirrorLayout.data(of: portland.packages[0].item.id) { file.sha256 = (try? FileDigest.sha256(path: package)) ?? "" }
            return file
        }
        index.put(staged)
        try AtomicFile.writeJSON(index, to: folder + "/" + MirrorLayout.index)

        let records = try await Self.downloadBoth(fixture, mirror: server)
        // Bangor's honest copy: from the mirror, vouched for by the portal. Portland's: refused.
        #expect(records[0].source == .mirror(server.baseURL.absoluteString))
        #expect(records[0].packages[0].verifiedBy == "SHA-256, the portal's zip directory, zip CRC-32")
        #expect(records[1].source == .portal)
        #expect(records[1].packages[0].mirrorProblem == "the mirror's copy is damaged (its zip directory is not the portal's)")
    }

    @Test(.timeLimit(.minutes(2))) func aDrippingIndexIsGivenUpOnceNotPerPackage() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let (server, _) = try await Self.mirror(of: fixture) { $0 == "mirror.json" }
        defer { server.stop() }
        let records = try await Self.downloadBoth(fixture, mirror: server)
        #expect(records.allSatisfy { $0.source == .portal })
        let first = try #require(records[0].packages.first?.mirrorProblem)
        #expect(first.contains("could not be asked (") && first.contains("sent less than 1.0 KiB/s"), "\(first)")
        #expect(records[1].packages.first?.mirrorProblem?.contains("was left for the portal earlier (") == true)
        // Asked at most once for both packages (under load the client may give up before the
        // server has even read the request, so none is logged).
        #expect(server.requests.filter { $0.path == "/mirror.json" }.count <= 1)
    }
}

import Foundation
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// A fleet mirror end to end: `mapbook stage` copies the sample portal's web map into a folder,
/// Debian's nginx serves it with `scripts/mirror/nginx.conf` (through `scripts/mirror/serve`), and
/// twenty devices download every area at once from it — byte for byte the portal's packages, which
/// the portal sent only to the stage. A damaged copy on the mirror is caught by its SHA-256 and
/// fetched from the portal; with the portal stopped the mirror alone serves the web map.
@Suite("The fleet mirror (mapbook stage, nginx, --mirror)", .serialized)
struct FleetMirrorTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-fleet-\(UUID())").path

    static let nginx = MirrorServer.nginx

    /// A range with an end: the portal asked to vouch for a mirror's copy, not for the package.
    static func asksForTheDirectory(_ request: LoopbackRequest) -> Bool {
        guard let range = request.headers["range"] else { return false }
        return !range.hasSuffix("-")
    }

    /// A command on one device (its own library and config); `stage` has no library. Twenty at once
    /// run niced, so that they do not crowd out the timing of the other tests in this process.
    func run(_ arguments: [String], device: String, niced: Bool = false) async throws -> CLIResult {
        try await CLI.runAsync(arguments + (arguments.first == "stage" ? [] : ["--data-dir", "\(home)/\(device)/data"]),
                               environment: ["XDG_CONFIG_HOME": "\(home)/\(device)/config", "XDG_STATE_HOME": "\(home)/\(device)/state",
                                             "XDG_CACHE_HOME": "\(home)/\(device)/cache"], niced: niced)
    }

    /// GETs of a package's bytes the portal has answered, by package id (not the few kilobytes of
    /// its zip directory a device asks for to check a mirror's copy).
    static func packageFetches(_ portal: SamplePortal) -> [String: Int] {
        var counts: [String: Int] = [:]
        for request in portal.requests where request.method == "GET" && !Self.asksForTheDirectory(request) {
            let parts = request.path.split(separator: "/")
            guard parts.count == 6, parts.last == "data", request.query["f"] == nil else { continue }
            counts[String(parts[4]), default: 0] += 1
        }
        return counts
    }

    @Test(.enabled(if: nginx != nil, "needs nginx (scripts/setup installs it)"))
    func twentyDevicesTakeEveryPackageFromTheMirrorAndADamagedCopyFromThePortal() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let address = portal.baseURL.absoluteString, mirrorFolder = home + "/mirror"

        let staged = try await run(["stage", "--portal", address, "--all", "--to", mirrorFolder, "--json"], device: "stage")
        #expect(staged.status == 0, "\(staged.stdout) \(staged.stderr)")
        let stagedFetches = Self.packageFetches(portal)
        #expect(stagedFetches.count == 7 && stagedFetches.values.allSatisfy { $0 == 1 }, "\(stagedFetches)")

        let server = try MirrorServer(folder: mirrorFolder)
        defer { server.stop() }
        try await server.waitUntilAnswering()

        let devices = 20
        let results = try await withThrowingTaskGroup(of: (Int, CLIResult).self) { group in
            for device in 0..<devices {
                group.addTask {
                    (device, try await run(["download", "--all", "--portal", address, "--mirror", server.url, "--json"], device: "device\(device)",
                                           niced: true))
                }
            }
            return try await group.reduce(into: [Int: CLIResult]()) { $0[$1.0] = $1.1 }
        }
        for (device, result) in results.sorted(by: { $0.key < $1.key }) {
            #expect(result.status == 0, "device \(device): \(result.stdout) \(result.stderr)")
        }
        #expect(Self.packageFetches(portal) == stagedFetches, "the devices took no package from the portal")

        // Every device holds the portal's bytes.
        var portalBytes: [String: Data] = [:]
        for id in stagedFetches.keys {
            portalBytes[id] = try #require(FileManager.default.contents(atPath: "\(mirrorFolder)/sharing/rest/content/items/\(id)/data"))
        }
        for (id, package) in SampleFixture.content.packages where portalBytes[id] != nil {
            #expect(portalBytes[id] == package.data, "the mirror's copy of \(package.name) is the portal's")
        }
        for device in 0..<devices {
            let files = try FileManager.default.subpathsOfDirectory(atPath: "\(home)/device\(device)/data")
                .filter { $0.contains("/packages/") && !$0.hasSuffix("/packages") }
            #expect(files.count == 7, "device \(device): \(files)")
            for file in files {
                let id = String((file as NSString).lastPathComponent.prefix(32))
                #expect(FileManager.default.contents(atPath: "\(home)/device\(device)/data/\(file)") == portalBytes[id], "device \(device): \(file)")
            }
        }

        // A copy damaged on the mirror (same size, one byte changed) is caught and fetched from the portal.
        let acadia = try #require(SampleFixture.content.packages.values.first { $0.name.contains("Acadia") }).id
        let damaged = "\(mirrorFolder)/sharing/rest/content/items/\(acadia)/data"
        var bytes = try #require(FileManager.default.contents(atPath: damaged))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let repaired = try await run(["download", "Acadia", "--portal", address, "--mirror", server.url], device: "late")
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(repaired.stderr.contains("the mirror's copy is damaged (its SHA-256 is not the one mirror.json lists); it came from the portal instead."),
                "\(repaired.stderr)")
        #expect(Self.packageFetches(portal)[acadia] == 2)
        let library = try await run(["library", "--portal", address, "--json"], device: "late")
        let area = try JSONValue(parsing: Data(library.stdout.utf8))["mapAreas"]?.array.first { $0["title"]?.string == "Acadia" }
        #expect(area?["from"]?.string == "portal")
        #expect(area?["packages"]?[0]?["mirrorProblem"]?.string?.contains("SHA-256") == true)

        // The portal updates Bangor's package; the mirror, not yet staged again, holds the old
        // version: a device takes the new one from the portal, without a word about the mirror.
        try portal.updateFaults { try $0.apply("update=\(SampleFixture.bangor.id)") }
        let updated = try await run(["download", "Bangor", "--portal", address, "--mirror", server.url], device: "late")
        #expect(updated.status == 0 && updated.stdout.contains("Bangor: downloaded 2.0 MiB, verified"), "\(updated.stdout) \(updated.stderr)")
        #expect(!updated.stderr.contains("mirror"))
        #expect(Self.packageFetches(portal)[SampleFixture.bangor.packageID] == 2)
    }

    @Test(.enabled(if: nginx != nil, "needs nginx (scripts/setup installs it)"))
    func withThePortalStoppedTheMirrorAloneListsAndDownloads() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        let address = portal.baseURL.absoluteString, mirrorFolder = home + "/mirror"
        let staged = try await run(["stage", "--portal", address, "Bangor", "Acadia", "--to", mirrorFolder], device: "stage")
        #expect(staged.status == 0, "\(staged.stderr)")
        #expect(staged.stdout.contains("Staged 2 areas"), "\(staged.stdout)")
        portal.stop()

        let server = try MirrorServer(folder: mirrorFolder)
        defer { server.stop() }
        try await server.waitUntilAnswering()
        let areas = try await run(["areas", "--portal", address, "--mirror", server.url], device: "device")
        #expect(areas.status == 0 && areas.stdout.contains("Bangor") && !areas.stdout.contains("Boston"), "\(areas.stdout) \(areas.stderr)")
        #expect(areas.stdout.hasPrefix("Explore Maine (\(SampleCatalog.webMapID)) on the mirror at 127.0.0.1:\(server.port) (127.0.0.1 not answering)"),
                "\(areas.stdout)")
        let download = try await run(["download", "Bangor", "--portal", address, "--mirror", server.url], device: "device")
        #expect(download.status == 0, "\(download.stdout) \(download.stderr)")
        #expect(download.stdout.contains("Bangor: downloaded 2.0 MiB from mirror \(server.url)"), "\(download.stdout)")

        // A damaged copy with no portal to fall back on: both are said, and it counts as an outage.
        let acadia = try #require(SampleCatalog.areas.first { $0.title == "Acadia" }).packageID
        let damaged = "\(mirrorFolder)/sharing/rest/content/items/\(acadia)/data"
        var bytes = try #require(FileManager.default.contents(atPath: damaged))
        bytes[100] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let failed = try await run(["download", "Acadia", "--portal", address, "--mirror", server.url], device: "device")
        #expect(failed.status == 3, "\(failed.stdout) \(failed.stderr)")
        #expect(failed.stderr.contains("Acadia: failed. Acadia basemap: the mirror's copy is damaged (its SHA-256 is not the one mirror.json lists), and from the portal: Cannot reach 127.0.0.1"),
                "\(failed.stderr)")
    }

    @Test(.enabled(if: nginx != nil, "needs nginx (scripts/setup installs it)"))
    func aMobileMapPackageItemIsStagedAndTakenFromTheMirror() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let address = portal.baseURL.absoluteString, mirrorFolder = home + "/mirror"
        let staged = try await run(["stage", "--portal", address, SampleMobilePackage.id, "--to", mirrorFolder], device: "stage")
        #expect(staged.status == 0 && staged.stdout.contains("Maine Places: staged, verified (zip CRC-32)"), "\(staged.stdout) \(staged.stderr)")
        let server = try MirrorServer(folder: mirrorFolder)
        defer { server.stop() }
        try await server.waitUntilAnswering()
        let download = try await run(["download", SampleMobilePackage.id, "--portal", address, "--mirror", server.url], device: "device")
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("Maine Places: downloaded 1.8 MiB from mirror \(server.url), verified (SHA-256, the portal's zip directory, zip CRC-32)"),
                "\(download.stdout)")
        #expect(Self.packageFetches(portal)[SampleMobilePackage.id] == 1, "only the stage took it from the portal")
        // With the portal gone, the item's description comes from the mirror too.
        portal.stop()
        let offline = try await run(["download", SampleMobilePackage.id, "--portal", address, "--mirror", server.url], device: "second-device")
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout.contains("Maine Places: downloaded 1.8 MiB from mirror \(server.url)"), "\(offline.stdout)")
    }

    @Test func aMirrorThatCannotBeAskedIsSaidAndThePortalGivesThePackage() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let nowhere = "http://127.0.0.1:\(MirrorServer.freePort())"
        let download = try await run(["download", "Bangor", "--portal", portal.baseURL.absoluteString, "--mirror", nowhere], device: "device")
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("Bangor: downloaded 2.0 MiB, verified (zip CRC-32)."), "\(download.stdout)")
        #expect(download.stderr.contains("Bangor basemap: the mirror at 127.0.0.1:"), "\(download.stderr)")
        #expect(download.stderr.contains("could not be asked (Cannot reach 127.0.0.1"), "\(download.stderr)")
    }
}

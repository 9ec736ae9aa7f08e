import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook packages available` and `mapbook download ITEM` for a portal's mobile map packages.
@Suite("mapbook packages available / download a package item")
struct PortalPackageCommandTests {
    let server: SamplePortal
    let home: String
    var portal: String { server.baseURL.absoluteString }
    var environment: [String: String] { ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state", "XDG_DATA_HOME": home + "/data"] }

    init() throws {
        server = try SampleFixture.start()
        home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-packages-\(UUID())").path
    }

    func available() async throws -> [JSONValue] {
        let result = try await CLI.runAsync(["packages", "available", "--portal", portal, "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONValue(parsing: Data(result.stdout.utf8))["packages"]?.array ?? []
    }

    @Test func listDownloadAndSeeAnUpdate() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let listed = try await available()
        #expect(listed.map { $0["title"] } == [.string("Maine Places")] && listed.first?["onDevice"] == .null)

        let download = try await CLI.runAsync(["download", "--portal", portal, SampleMobilePackage.id], environment: environment)
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.hasPrefix("Maine Places: downloaded 1.8 MiB, verified (zip CRC-32), into "), "\(download.stdout)")
        #expect(try await available().first?["onDevice"] == .string("on this device"))
        let onDevice = try await CLI.runAsync(["packages", "--json"], environment: environment)
        let entries = try JSONValue(parsing: Data(onDevice.stdout.utf8))["packages"]?.array ?? []
        #expect(entries.map { $0["item"] } == [.string(SampleMobilePackage.id)] && entries.first?["maps"] == .array([.string("Maine")]))

        // Again: nothing fetched. After the portal's update: "update available", then fetched anew.
        let again = try await CLI.runAsync(["download", "--portal", portal, "--json", SampleMobilePackage.id], environment: environment)
        #expect(again.stdout.contains("\"event\":\"upToDate\""))
        try server.updateFaults { try $0.apply("update=Maine Places") }
        #expect(try await available().first?["onDevice"] == .string("update available"))
        let text = try await CLI.runAsync(["packages", "available", "--portal", portal], environment: environment)
        #expect(text.stdout.split(separator: "\n").last?.contains("update available") == true)
        let update = try await CLI.runAsync(["download", "--portal", portal, "--json", SampleMobilePackage.id], environment: environment)
        #expect(update.status == 0 && update.stdout.contains("\"event\":\"downloaded\""), "\(update.stderr)")
        #expect(try await available().first?["onDevice"] == .string("on this device"))
    }

    /// The portal refuses the bytes: one sentence, exit 1, and nothing listed on the device.
    @Test func aFailedDownloadSaysWhyAndKeepsNothing() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        try server.updateFaults { try $0.apply("corrupt") }
        let result = try await CLI.runAsync(["download", "--portal", portal, SampleMobilePackage.id], environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Maine Places: failed. Maine Places arrived damaged ("), "\(result.stderr)")
        #expect(try await CLI.runAsync(["packages"], environment: environment).stdout.hasPrefix("No mobile map packages on this device."))
    }
}

import Foundation
import PortalFixtures
import SamplePortal
import Testing

/// Every option and argument that takes a point takes it as people write it, with a leading minus:
/// western and southern points in every command (`-97.74,30.27` is not an option).
@Suite("Points west and south")
struct CoordinateArgumentTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-points-\(UUID())").path

    func run(_ arguments: [String]) async throws -> CLIResult {
        try await CLI.runAsync(arguments, environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state"])
    }

    @Test func everyCommandTakesANegativeCoordinate() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let url = portal.baseURL.absoluteString, data = home + "/data", package = SampleFixture.acadiaPackagePath
        let commands: [[String]] = [
            ["pins", "add", "--at", "-97.74,30.27", "--title", "Austin", "--data-dir", data],
            ["pins", "add", "--at", "151.21,-33.87", "--title", "Sydney", "--data-dir", data],
            ["reverse", "-68.25,44.35", "--offline", "--data-dir", data],
            ["reverse", "--offline", "-68.25,-44.35", "--data-dir", data],
            ["reverse", "--offline", "--data-dir", data, "--", "-68.25,44.35"],
            ["search", "Bangor", "--near", "-68.7,44.8", "--offline", "--data-dir", data],
            ["areas", "--near", "-68.7,44.8", "--portal", url],
            ["identify", "--file", package, "--at", "-68.2039,44.3876"],
            ["snapshot", "--file", package, "--center", "-68.2,44.39", "--zoom", "9", "--size", "40x12"],
        ]
        for command in commands {
            let result = try await run(command)
            #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.stderr)")
            #expect(!result.stderr.contains("Missing value") && !result.stderr.contains("Unknown option"))
        }
        let pins = try await run(["pins", "list", "--data-dir", data, "--json"])
        #expect(pins.stdout.contains("-97.74") && pins.stdout.contains("-33.87"))
        let reverse = try await run(["reverse", "-68.25,44.35", "--offline", "--json", "--data-dir", data])
        #expect(reverse.stdout.contains("-68.25"))
    }
}

import Foundation
import MapbookCore
import SharedTestData
import Testing

/// The commands that take a file, given Esri's sample mobile geodatabase (and a damaged copy).
@Suite("mapbook package inspect / identify / snapshot with a .geodatabase",
       .enabled(if: FileManager.default.fileExists(atPath: usaGeodatabasePath), "needs ../shared/data/features/usa.geodatabase"))
struct GeodatabaseCommandTests {
    @Test func inspectListsItsLayersAndCounts() async throws {
        let text = try await CLI.runAsync(["package", "inspect", "--check", usaGeodatabasePath])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("usa.geodatabase — Mobile geodatabase (.geodatabase)") == true)
        #expect(lines.contains { $0.contains("US-States") && $0.contains("polygon") && $0.contains(" 49 ") && $0.hasSuffix("ok") })
        let json = try JSONValue(parsing: Data(try await CLI.runAsync(["package", "inspect", "--json", usaGeodatabasePath]).stdout.utf8))
        #expect(json["type"] == .string("geodatabase"))
        #expect(json["layers"]?.array.map { $0["features"]?.int64 ?? -1 } == [118, 228, 49])
        #expect(json["layers"]?.array.allSatisfy { $0["damaged"]?.int64 == 0 && $0["cannotBeDrawn"] == .null } == true)
    }

    @Test func identifyInsideMaineFindsMaine() async throws {
        let result = try await CLI.runAsync(["identify", "--file", usaGeodatabasePath, "--at", "-69.2,45.3", "--zoom", "6", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONValue(parsing: Data(result.stdout.utf8))
        let first = try #require(json["features"]?.array.first)
        #expect(first["layer"] == .string("US-States") && first["title"] == .string("Maine"))
    }

    @Test func snapshotDrawsItWithoutProblems() async throws {
        let result = try await CLI.runAsync(["snapshot", "--file", usaGeodatabasePath, "--center=-71.5,43", "--zoom", "6.2", "--size", "80x24"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout.contains("●") && result.stdout.split(separator: "\n").count == 24)
    }

    /// A file cut short: one sentence naming it, exit 1, from every command.
    @Test func aDamagedFileIsOneSentence() async throws {
        let cut = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-cut-\(getpid()).geodatabase")
        defer { try? FileManager.default.removeItem(at: cut) }
        try Data(try Data(contentsOf: URL(fileURLWithPath: usaGeodatabasePath)).prefix(3000)).write(to: cut)
        for arguments in [["package", "inspect", cut.path], ["snapshot", "--file", cut.path], ["identify", "--file", cut.path, "--at", "-69,45"]] {
            let result = try await CLI.runAsync(arguments)
            #expect(result.status == 1)
            #expect(result.stderr == "mapbook: \(cut.lastPathComponent): It cannot be read (database disk image is malformed).\n", "\(arguments)")
        }
    }
}

let usaGeodatabasePath = SharedData.url("features/usa.geodatabase").path

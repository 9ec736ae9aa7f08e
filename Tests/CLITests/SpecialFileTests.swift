import Foundation
import MapbookCore
import Testing

/// Files that are not files: a FIFO (or a device) where a package or a geodatabase should be is
/// refused in a sentence, never waited on — whatever its name, by every command that reads one.
@Suite("FIFOs in place of packages")
struct SpecialFileTests {
    static func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-fifo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func aFIFONamedLikeAPackageIsRefusedAtOnce() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["f.tpk", "f.vtpk", "f.tpkx", "f.geodatabase", "f", "f.mmpk"] {
            let path = dir + "/" + name
            #expect(mkfifo(path, 0o600) == 0)
            for arguments in [["package", "inspect", path], ["package", "inspect", "--check", path], ["snapshot", "--file", path, "--size", "40x10"],
                              ["identify", "--file", path, "--at", "0,0"], ["package", "features", path]] {
                let result = try await CLI.runAsync(arguments, environment: ["XDG_CACHE_HOME": dir + "/cache"], killedAfter: .seconds(30))
                #expect(result.status == 1 || result.status == 64, "\(arguments.joined(separator: " ")): \(result.status) \(result.stderr)")
                #expect(result.stderr.hasPrefix("mapbook: ") && result.stderr.split(separator: "\n").count == 1,
                        "\(arguments.joined(separator: " ")): \(result.stderr)")
            }
        }
    }

    /// An unpacked package holding FIFOs in files' places: they are not files of the package, so the
    /// import takes the rest (once: it hung in the copy, leaving a half-made folder).
    @Test func importingAFolderThatHoldsFIFOsTakesTheRest() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let package = dir + "/unpacked"
        try FileManager.default.createDirectory(atPath: package + "/p13", withIntermediateDirectories: true)
        try Data(#"{"map":{"operationalLayers":[],"baseMap":{"baseMapLayers":[]}},"item":{"title":"Fifo"}}"#.utf8)
            .write(to: URL(fileURLWithPath: package + "/p13/map.mmap"))
        #expect(mkfifo(package + "/p13/Usa.tpkx", 0o600) == 0)
        #expect(mkfifo(package + "/package.info", 0o600) == 0)
        let library = dir + "/library"
        let result = try await CLI.runAsync(["import", package, "--data-dir", library], killedAfter: .seconds(30))
        #expect(result.status == 0, "\(result.status) \(result.stderr)")
        #expect(result.stdout == "Imported unpacked (unpacked, 1 map, 87 B).\n")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: library + "/packages")) == ["unpacked"])
        #expect(!FileManager.default.fileExists(atPath: library + "/packages/unpacked/p13/Usa.tpkx"))
        #expect(!FileManager.default.fileExists(atPath: library + "/packages/unpacked/package.info"))
    }
}

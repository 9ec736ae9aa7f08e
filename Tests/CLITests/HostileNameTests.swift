import Foundation
import MapbookCore
import Testing
import TileFormats

/// Names inside a package are the package's words, not the terminal's: escape sequences in zip
/// entry names (a window title, a screen clear, a clipboard write, a C1 CSI, a right-to-left
/// override) never reach standard output or standard error raw, whichever command prints them.
@Suite("Hostile names in packages")
struct HostileNameTests {
    /// What a terminal would obey in a name: every escape, C1 control and direction override.
    static let hostile = "\u{1B}]0;pwned\u{7}\u{1B}[2J\u{1B}]52;c;cHduZWQ=\u{7}\u{9B}31m\u{202E}"

    /// Whether printed text holds anything a terminal would act on (line breaks and tabs aside).
    static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { s in
            (s.value < 0x20 && s != "\n" && s != "\t") || (0x7F...0x9F).contains(s.value)
                || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
        }
    }

    /// A zip written by `ZipWriter`, then one entry's stored CRC-32 or compression method altered.
    static func zip(_ entries: [(String, Data)], at path: String, breakingCRCOf broken: String? = nil,
                    method: (entry: String, value: UInt16)? = nil) throws {
        let writer = try ZipWriter(path: path)
        for (name, data) in entries { try writer.add(name, data) }
        try writer.finish()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        func patch(_ name: String, header: UInt32, field: Int, _ value: [UInt8]) {
            let signature = withUnsafeBytes(of: header.littleEndian) { Data($0) }
            var from = bytes.startIndex
            while let found = bytes.range(of: signature, in: from..<bytes.endIndex) {
                let nameAt = found.lowerBound + (header == 0x0403_4B50 ? 30 : 46)
                if bytes[nameAt...].starts(with: Data(name.utf8)) {
                    bytes.replaceSubrange(found.lowerBound + field ..< found.lowerBound + field + value.count, with: value)
                }
                from = found.upperBound
            }
        }
        if let broken {
            patch(broken, header: 0x0403_4B50, field: 14, [0xDE, 0xAD, 0xBE, 0xEF])
            patch(broken, header: 0x0201_4B50, field: 16, [0xDE, 0xAD, 0xBE, 0xEF])
        }
        if let method {
            let value = [UInt8(method.value & 0xFF), UInt8(method.value >> 8)]
            patch(method.entry, header: 0x0403_4B50, field: 8, value)
            patch(method.entry, header: 0x0201_4B50, field: 10, value)
        }
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    static let map = Data(#"{"map":{"operationalLayers":[],"baseMap":{"baseMapLayers":[]}},"item":{"title":"Hostile"}}"#.utf8)

    /// Every command that takes a package prints its names inert: a map entry failing its CRC, a
    /// layer file in an unknown compression, and (refused whole) an entry named to climb out.
    @Test func everyCommandThatPrintsANameKeepsItInert() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-hostile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let badMap = "p13/\(Self.hostile).mmap", tiles = "p13/\(Self.hostile).tpkx"
        try Self.zip([("p13/good.mmap", Self.map), (badMap, Self.map)], at: dir + "/crc.mmpk", breakingCRCOf: badMap)
        let layered = Data(#"{"map":{"operationalLayers":[],"baseMap":{"baseMapLayers":[{"layerType":"ArcGISTiledMapServiceLayer","title":"\#(Self.hostile.unicodeEscaped)","path":"file:./\#(tiles.dropFirst(4).description.unicodeEscaped)"}]}}}"#.utf8)
        try Self.zip([("p13/layered.mmap", layered), (tiles, Data(repeating: 7, count: 100))], at: dir + "/method.mmpk",
                     method: (tiles, 99))
        // The same length as a safe name, then made to climb out of the package.
        let climbing = "zz/\(Self.hostile)"
        try Self.zip([("p13/good.mmap", Self.map), (climbing, Data([1]))], at: dir + "/unsafe.mmpk")
        var unsafe = try Data(contentsOf: URL(fileURLWithPath: dir + "/unsafe.mmpk"))
        while let at = unsafe.range(of: Data(climbing.utf8)) { unsafe.replaceSubrange(at.lowerBound..<at.lowerBound + 2, with: Data("..".utf8)) }
        try unsafe.write(to: URL(fileURLWithPath: dir + "/unsafe.mmpk"))
        try Self.zip([("v101/Layers/conf.xml", Data("<CacheInfo/>".utf8)), ("v101/\(Self.hostile)/x", Data([1]))], at: dir + "/names.tpk",
                     breakingCRCOf: "v101/Layers/conf.xml")
        let library = dir + "/library"
        try FileManager.default.createDirectory(atPath: library + "/packages", withIntermediateDirectories: true)
        for name in ["crc.mmpk", "method.mmpk", "unsafe.mmpk"] {
            try FileManager.default.copyItem(atPath: dir + "/" + name, toPath: library + "/packages/" + name)
        }
        let environment = ["XDG_CACHE_HOME": dir + "/cache"]
        var runs: [[String]] = []
        for file in ["crc.mmpk", "method.mmpk", "unsafe.mmpk", "names.tpk"].map({ dir + "/" + $0 }) {
            runs += [["package", "inspect", file], ["package", "inspect", "--check", file], ["package", "inspect", "--json", file],
                     ["snapshot", "--file", file, "--size", "40x10"], ["identify", "--file", file, "--at", "0,0"],
                     ["import", file, "--data-dir", dir + "/imported"]]
        }
        runs += [["packages", "--data-dir", library], ["packages", "--json", "--data-dir", library]]
        var saidSomething = 0
        for arguments in runs {
            let result = try await CLI.runAsync(arguments, environment: environment)
            #expect(Self.isInert(result.stdout) && Self.isInert(result.stderr),
                    "\(arguments.joined(separator: " ")): \(result.stdout.debugDescription) \(result.stderr.debugDescription)")
            if result.status != 0 { saidSomething += result.stderr.isEmpty && result.stdout.isEmpty ? 0 : 1 }
        }
        #expect(saidSomething > runs.count / 2, "the hostile packages are refused, each in words")
        // JSON names the kind of failure, not "internal".
        let json = try await CLI.runAsync(["package", "inspect", "--json", dir + "/unsafe.mmpk"], environment: environment)
        #expect(try JSONValue(parsing: Data(json.stdout.utf8))["error"]?["kind"] == .string("badPackage"), "\(json.stdout)")
    }
}

private extension String {
    /// The text as a JSON string's body, every scalar outside printable ASCII written `\uXXXX`.
    var unicodeEscaped: String {
        unicodeScalars.map { s in
            s.value >= 0x20 && s.value < 0x7F && s != "\"" && s != "\\" ? String(s)
                : s.value > 0xFFFF ? String(format: "\\u%04x\\u%04x", 0xD800 + ((s.value - 0x10000) >> 10), 0xDC00 + ((s.value - 0x10000) & 0x3FF))
                : String(format: "\\u%04x", s.value)
        }.joined()
    }
}

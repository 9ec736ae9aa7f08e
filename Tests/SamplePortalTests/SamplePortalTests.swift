import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import Testing
import TileFormats
@testable import SamplePortal
import ArcGISModel
import Geometry

/// What the sample portal holds: real packages over each area, thumbnails, a basemap service.
@Suite struct SampleContentTests {
    @Test func everyAreaPackageOpensAndHoldsTilesOverItsArea() throws {
        for area in SampleCatalog.areas {
            let stored = try #require(SampleFixture.content.packages[area.packageID])
            #expect((100_000...8_000_000).contains(stored.data.count), "\(area.title): \(stored.data.count) bytes")
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("sample-\(UUID()).vtpk").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try stored.data.write(to: URL(fileURLWithPath: path))
            let package = try TilePackage(path: path)
            #expect(package.info.kind == .vectorTilePackage)
            #expect(package.info.levels.map(\.zoom) == Array(0...SampleBasemap.areaZooms.upperBound))
            // The deepest tile under the area's centre exists and has Maine (or Massachusetts) in it.
            let centre = WebMercator.projected(longitude: (area.extent.xmin + area.extent.xmax) / 2,
                                               latitude: (area.extent.ymin + area.extent.ymax) / 2)
            let zoom = SampleBasemap.areaZooms.upperBound
            let key = WebMercator.tile(containingX: centre.x, y: centre.y, zoom: zoom)
            let tile = try #require(try package.vectorTile(z: zoom, x: key.column, y: key.row), "\(area.title)")
            #expect(tile.layers.contains { $0.name == "region" && !$0.features.isEmpty }, "\(area.title)")
            let (checked, damaged) = try package.verifyTiles()
            #expect(checked == stored.tileCount && damaged.isEmpty, "\(area.title)")
            #expect(try package.style()?.layers.contains { $0.sourceLayer == "places" } == true)
        }
    }

    @Test func packagesAreDeterministic() throws {
        let area = SampleFixture.bangor
        let tiles = SampleFixture.content.basemap.packageTiles(for: area.extent)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("again-\(UUID()).vtpk").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try VectorTilePackageWriter(name: area.packageName, title: "\(area.title) basemap", snippet: area.snippet,
                                    extent: area.extent, style: SampleBasemap.style).write(tiles: tiles, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == SampleFixture.content.packages[area.packageID]?.data)
    }

    @Test func thumbnailsArePNGsOfArcGISSize() throws {
        for id in [SampleCatalog.webMapID] + SampleCatalog.areas.map(\.id) {
            let png = try #require(SampleFixture.content.thumbnails[id])
            #expect(TileContent.classify(png, vector: false) == .png)
            let size = png.subdata(in: 16..<24).reduce(into: [UInt8]()) { $0.append($1) }
            #expect(size == [0, 0, 0, 200, 0, 0, 0, 133])
        }
        #expect(SampleFixture.content.thumbnails[SampleFixture.portlandID] != SampleFixture.content.thumbnails[SampleFixture.bangorID])
    }
}

/// The REST shapes, over HTTP.
@Suite struct SampleRESTTests {
    let portal: SamplePortal
    let http = HTTPClient(configuration: HTTPConfiguration(retry: .none))

    init() throws { portal = try SampleFixture.start() }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> HTTPResponse {
        try await http.send(HTTPRequest(url: URL(string: portal.baseURL.absoluteString + path)!, headers: headers))
    }

    func json(_ path: String) async throws -> JSONValue { try JSONValue(parsing: try await get(path).body) }

    @Test func rangeRequestsGetExactlyThoseBytes() async throws {
        let area = SampleFixture.portland
        let path = "/sharing/rest/content/items/\(area.packageID)/data"
        let whole = try await get(path)
        #expect(whole.status == 200)
        #expect(whole.body == SampleFixture.content.packages[area.packageID]?.data)
        #expect(whole.headers["content-length"] == String(whole.body.count))
        let etag = try #require(whole.headers["etag"])
        #expect(whole.headers["last-modified"] != nil)

        let part = try await get(path, headers: [("Range", "bytes=100-199")])
        #expect(part.status == 206)
        #expect(part.body == whole.body.subdata(in: 100..<200))
        #expect(part.headers["content-range"] == "bytes 100-199/\(whole.body.count)")
        let stale = try await get(path, headers: [("Range", "bytes=100-199"), ("If-Range", "\"other\"")])
        #expect(stale.status == 200 && stale.body == whole.body, "If-Range with another validator gets the whole file")
        let current = try await get(path, headers: [("Range", "bytes=100-"), ("If-Range", etag)])
        #expect(current.status == 206 && current.body.count == whole.body.count - 100)
        #expect(portal.requests.contains { $0.headers["range"] == "bytes=100-199" })
    }

    /// `curl -r 100-199` itself, when curl is installed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
    func curlRangeGets206() throws {
        let area = SampleFixture.bangor
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-r", "100-199", "-w", "%{http_code}", "-o", "-",
                             portal.baseURL.absoluteString + "/sharing/rest/content/items/\(area.packageID)/data"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let expected = SampleFixture.content.packages[area.packageID]!.data.subdata(in: 100..<200)
        #expect(output == expected + Data("206".utf8))
    }

    @Test func unknownItemsAndTokensAnswerAsArcGISDoes() async throws {
        let unknown = try await json("/sharing/rest/content/items/0123456789abcdef0123456789abcdef?f=json")
        #expect(unknown["error"]?["code"]?.int64 == 400)
        #expect(unknown["error"]?["message"]?.string == "Item does not exist or is inaccessible.")
        let item = "/sharing/rest/content/items/\(SampleCatalog.protectedID)?f=json"
        #expect(try await json(item)["error"]?["code"]?.int64 == 499)
        let bad = try JSONValue(parsing: try await get(item, headers: [("X-Esri-Authorization", "Bearer wrong")]).body)
        #expect(bad["error"]?["code"]?.int64 == 498)
        let good = try JSONValue(parsing: try await get(item, headers: [("X-Esri-Authorization", "Bearer \(SampleCatalog.validToken)")]).body)
        #expect(good["type"]?.string == "Web Map")
    }

    @Test func strictLikeTheRealAPI() async throws {
        let webMap = "/sharing/rest/content/items/\(SampleCatalog.webMapID)"
        #expect(try await get(webMap).headers["content-type"] == "text/html", "no f=json: an HTML page")
        let pretty = try await get(webMap + "?f=pjson")
        #expect(String(decoding: pretty.body, as: UTF8.self).contains("\n"))
        let noDirection = try await json(webMap + "/relatedItems?relationshipType=Map2Area&f=json")
        #expect(noDirection["error"]?["code"]?.int64 == 400)
        // Parameters in any order.
        let areas = try await json(webMap + "/relatedItems?f=json&direction=forward&relationshipType=Map2Area")
        #expect(areas["total"]?.int64 == 6)
        let item = try await json(webMap + "?f=json")
        #expect(item["created"]?.double == 1_521_583_200_000)
        #expect(item["extent"]?.array.count == 2)
    }

    @Test func vectorTileServerServesServiceStyleAndTiles() async throws {
        let service = try await json(SampleCatalog.basemapServicePath + "?f=json")
        #expect(service["tiles"]?[0]?.string == "tile/{z}/{y}/{x}.pbf")
        #expect(service["tileInfo"]?["rows"]?.int64 == 512)
        let style = try await get(SampleCatalog.basemapServicePath + "/resources/styles/root.json")
        #expect(try VectorStyle(data: style.body).layers.count >= 5)
        // Maine at zoom 6 is column 19, row 22; curl undoes the gzip.
        let tile = try await get(SampleCatalog.basemapServicePath + "/tile/6/22/19.pbf")
        #expect(tile.status == 200)
        let decoded = try TileContent.decodeVectorTile(tile.body)
        #expect(Set(decoded.layers.map(\.name)).isSuperset(of: ["region", "state", "counties"]))
        let missing = try await json(SampleCatalog.basemapServicePath + "/tile/6/0/0.pbf")
        #expect(missing["error"]?["code"]?.int64 == 404)
    }

    @Test func searchFindsByFieldAndWord() async throws {
        let maps = try await json("/sharing/rest/search?q=type:%22Web%20Map%22&f=json")
        #expect(maps["results"]?.array.map { $0["title"]?.string }
            == ["Explore Maine", "Explore Maine Basemap", "Maine Topographic", "Explore Maine Dark", "Maine Relief with Boundaries",
                "Maine services", "Maine survey (UTM)"],
                "the web maps and the gallery's basemaps")
        let gallery = try await json("/sharing/rest/search?q=group:9a1b2c3d4e5f40718293a4b5c6d7e8f9&f=json")
        #expect(gallery["total"]?.int64 == 4)
        let words = try await json("/sharing/rest/search?q=Katahdin&f=json")
        #expect(words["results"]?.array.map { $0["title"]?.string } == ["Baxter State Park"])
    }

    @Test func adminEndpointChangesFaultsAtRunTime() async throws {
        let answer = try await json("/admin/faults?processing=Acadia&bandwidth=200k")
        #expect(answer["bandwidth"]?.int64 == 204_800)
        #expect(portal.faults.areaStatus[SampleCatalog.areas[0].id] == "processing")
        await #expect(throws: HTTPError.status(400, host: "127.0.0.1", retryAfter: nil)) {
            try await get("/admin/faults?warp=9")
        }
        _ = try await json("/admin/faults?reset")
        #expect(portal.faults == SampleFaults())
        // A reset among other keys goes first, whatever its place: the others are kept.
        _ = try await json("/admin/faults?corrupt&reset&latency=5")
        #expect(portal.faults.corrupt && portal.faults.latencyMilliseconds == 5)
    }

    @Test func faultSyntax() throws {
        var faults = SampleFaults()
        try faults.apply("latency=100, bandwidth=2M,status=503,retryAfter=2,count=3,ignoreRange,update=Bangor,failed=caribou")
        #expect(faults.latencyMilliseconds == 100 && faults.bytesPerSecond == 2 << 20)
        #expect(faults.errorStatus == 503 && faults.retryAfterSeconds == 2 && faults.errorCount == 3)
        #expect(faults.ignoreRange)
        #expect(faults.updates == [SampleFixture.bangor.packageID: 1])
        #expect(faults.areaStatus.values.contains("failed"))
        #expect(throws: SampleFaults.InvalidSetting.self) { try faults.apply("status=abc") }
        #expect(throws: SampleFaults.InvalidSetting.self) { try faults.apply("processing=Atlantis") }
        #expect(SampleRouter.redacted("/x?f=json&token=abc&q=1") == "/x?f=json&token=…&q=1")
    }
}

/// Lines collected from the portal's request log.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

@Suite struct SampleLogTests {
    /// A raw request line with an escape sequence in it: the log line carries no control character.
    @Test func requestLogIsSanitized() throws {
        let lines = LogLines()
        let portal = try SamplePortal(content: SampleFixture.content) { lines.add($0) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = portal.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let request = "GET /sharing/rest/search?q=\u{1B}[2J\u{1B}]0;owned\u{7}&f=json&token=secret HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        // The log line is written before the answer is sent: its first bytes are enough to wait for.
        var buffer = [UInt8](repeating: 0, count: 4096)
        #expect(recv(fd, &buffer, buffer.count, 0) > 0)
        let line = try #require(lines.all.first)
        #expect(line.hasPrefix("GET /sharing/rest/search?q="))
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!line.contains("secret"), "tokens are redacted")
    }
}

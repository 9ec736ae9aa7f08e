import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
import ArcGISModel
import LoopbackHTTP

/// `mapbook basemaps` lists the portal's gallery and keeps a choice per web map; `mapbook snapshot`
/// without an area or file draws the web map's basemap (the chosen one) online.
@Suite("mapbook basemaps and snapshot of the web map's basemap")
struct BasemapsCommandTests {
    let server: SamplePortal
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-basemaps-\(UUID())").path
    var portal: String { server.baseURL.absoluteString }
    /// The gallery's raster basemap is itself a web map: one whose basemap is a tiled MapServer.
    let topographic = "6c2f3b4d5e6f4a7b9c0d1e2f3a4b5c6d"
    let dark = "7d3a4c5e6f7a4b8c0d1e2f3a4b5c6d7e"

    init() throws { server = try SampleFixture.start() }

    func run(_ arguments: [String]) async throws -> CLIResult {
        try await CLI.runAsync(arguments + ["--portal", portal, "--data-dir", data],
                               environment: ["XDG_CACHE_HOME": data + "/cache"])
    }

    @Test func theGalleryAsJSONAndAChoiceThatIsRemembered() async throws {
        let listed = try await run(["basemaps", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: listed.output) as? [String: Any])
        let gallery = try #require(json["gallery"] as? [[String: Any]])
        #expect(gallery.map { $0["title"] as? String } == ["Explore Maine Basemap", "Maine Topographic", "Explore Maine Dark",
                                                                 "Maine Relief with Boundaries"])
        let layers = try #require(gallery[1]["layers"] as? [[String: Any]])
        #expect(layers.map { $0["layerType"] as? String } == ["ArcGISTiledMapServiceLayer", "VectorTileLayer"])
        #expect(layers.map { $0["isReference"] as? Bool } == [false, true])
        let webMap = try #require(json["webMap"] as? [String: Any])
        #expect((webMap["basemap"] as? [String: Any])?["current"] as? Bool == true)

        let chosen = try await run(["basemaps", "--use", "explore maine dark", "--json"])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        let after = try #require(try JSONSerialization.jsonObject(with: chosen.output) as? [String: Any])
        let current = (after["gallery"] as? [[String: Any]])?.filter { $0["current"] as? Bool == true }.map { $0["id"] as? String }
        #expect(current == [dark])
        // Another process sees it: the text listing marks it.
        let text = try await run(["basemaps"])
        #expect(text.stdout.split(separator: "\n").first { $0.hasPrefix("*") }?.contains("Explore Maine Dark") == true)

        let unknown = try await run(["basemaps", "--use", "Satellite"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("No basemap of the gallery is called Satellite"))
        let back = try await run(["basemaps", "--use", "web-map"])
        #expect(back.stdout.split(separator: "\n").first { $0.hasPrefix("*") }?.contains("this web map's own") == true)
    }

    @Test func aSnapshotOfAWebMapWithARasterBasemapShowsItsTiles() async throws {
        let result = try await run(["snapshot", "--webmap", topographic, "--size", "80x24", "--ansi"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 24)
        // The raster's land and water are half-block pixels in several colours.
        let colours = Set(result.stdout.matches(of: /48;5;(\d+)/).map { Int($0.1)! })
        #expect(colours.count >= 3, "\(colours)")
        #expect(result.stdout.contains("Natural Earth"), "the service's copyright")
    }

    /// A web map in UTM: as in the browser, its basemap (a cache in the zone) drawn, its layers over it.
    @Test func aSnapshotOfAWebMapInAnotherProjectionDrawsItsOwnBasemap() async throws {
        let result = try await run(["snapshot", "--webmap", SampleUTMMap.id, "--size", "80x24", "--ansi"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("cannot use") && !result.stderr.contains("world outline"), "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 24)
        // The cache's water, land and Maine, resampled: several colours, not the outline's two.
        let colours = Set(result.stdout.matches(of: /48;5;(\d+)/).map { Int($0.1)! })
        #expect(colours.count >= 3, "\(colours)")
        #expect(server.requests.contains { $0.path.contains("/Maine_Survey_UTM/MapServer/tile/") }, "the zone's tiles asked for")
        #expect(server.requests.contains { $0.path.hasSuffix("/FeatureServer/1/query") }, "its counties asked for the view: \(server.requests.map(\.path))")
    }

    /// A basemap layer's title from the portal reaches standard error only cleaned.
    @Test func theSentenceOnAnUndrawableBasemapIsCleaned() async throws {
        let id = "0123456789abcdef0123456789abcdef"
        let portal = try LoopbackServer { request in
            guard request.path == "/sharing/rest/content/items/\(id)/data" else {
                return .json(#"{"error":{"code":404,"message":"Item does not exist or is inaccessible.","details":[]}}"#)
            }
            return .json(#"{"baseMap": {"baseMapLayers": [{"layerType": "KML", "title": "Evil\u001b[2J\u0007 layer", "url": "http://127.0.0.1/x.kml"}]}}"#)
        }
        defer { portal.stop() }
        let result = try await CLI.runAsync(["snapshot", "--portal", portal.baseURL.absoluteString, "--webmap", id, "--size", "40x12",
                                             "--data-dir", data], environment: ["XDG_CACHE_HOME": data + "/cache"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Evil") && result.stderr.contains("world outline"), "\(result.stderr)")
        #expect(!result.stderr.utf8.contains(0x1B) && !result.stderr.utf8.contains(0x07))
    }
}

/// `mapbook search` and `mapbook reverse`: the portal's geocoder, each place with the areas that hold it.
@Suite("mapbook search and reverse")
struct SearchCommandTests {
    let server: SamplePortal
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-search-\(UUID())").path
    var portal: String { server.baseURL.absoluteString }

    init() throws { server = try SampleFixture.start() }

    func run(_ arguments: [String]) async throws -> CLIResult {
        try await CLI.runAsync(arguments, environment: ["XDG_CACHE_HOME": data + "/cache", "MAPBOOK_DATA_DIR": data])
    }

    @Test func searchFindsAPlaceAndTheAreaThatHoldsIt() async throws {
        let result = try await run(["search", "Bar Harbor", "--portal", portal, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        let first = try #require((json["results"] as? [[String: Any]])?.first)
        #expect(first["label"] as? String == "Bar Harbor, ME, USA" && first["type"] as? String == "City")
        let areas = try #require(first["areas"] as? [[String: Any]])
        #expect(areas.map { $0["title"] as? String } == ["Acadia"] && areas.first?["downloaded"] as? Bool == false)
        let text = try await run(["search", "bar harbor", "--portal", portal])
        #expect(text.stdout.hasPrefix("Bar Harbor, ME, USA  -68.2039,44.3876  City  — in Acadia"))
        // The point as printed, pasted back, is the place.
        let pasted = try await run(["reverse", "--portal", portal, "--json", "--", "-68.2039,44.3876"])
        let back = try #require(try JSONSerialization.jsonObject(with: pasted.output) as? [String: Any])
        #expect((back["address"] as? [String: Any])?["label"] as? String == "Bar Harbor, ME, USA")
        let empty = try await run(["search", " ", "--portal", portal])
        #expect(empty.status == 64 && empty.stderr.contains("Give a place or an address to look for."))
        let nothing = try await run(["search", "Atlantis", "--portal", portal])
        #expect(nothing.status == 0 && nothing.stdout == "No place found for “Atlantis”.\n")
    }

    @Test func reverseNamesThePlaceAndBadPointsAreRefused() async throws {
        let result = try await run(["reverse", "--portal", portal, "--json", "--", "-68.21,44.39"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        #expect((json["address"] as? [String: Any])?["label"] as? String == "Bar Harbor, ME, USA")
        #expect((json["areas"] as? [[String: Any]])?.count == 1)
        let bad = try await run(["reverse", "--portal", portal, "--", "-200,44"])
        #expect(bad.status != 0 && bad.stderr.contains("The point must be longitude,latitude, such as -68.2,44.35."))
        // Latitude first, where the latitude cannot be one: said, with the pair the right way round.
        let swapped = try await run(["reverse", "--portal", portal, "--", "30.27,-97.74"])
        #expect(swapped.status != 0 && swapped.stderr.contains("30.27,-97.74 reads latitude first: -97.7400,30.2700 is that point."), "\(swapped.stderr)")
        let near = try await run(["search", "Bangor", "--near", "nowhere", "--portal", portal])
        #expect(near.status != 0 && near.stderr.contains("No place called “nowhere”"))
    }

    @Test func offlineTheNamesOnThisDeviceAnswer() async throws {
        let result = try await run(["search", "bar harb", "--offline", "--portal", portal, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        #expect(json["source"] as? String == "device")
        let first = try #require((json["results"] as? [[String: Any]])?.first)
        #expect(first["label"] as? String == "Bar Harbor, Maine, United States" && abs((first["latitude"] as? Double ?? 0) - 44.39) < 0.05)
        #expect(first["type"] as? String == "the world gazetteer", "which source answered")
        #expect(!server.requests.contains { $0.path.contains("GeocodeServer") }, "offline asks no geocoder")
        // A portal that cannot be reached: the same, said on standard error.
        let unreachable = try await run(["search", "bangor, maine", "--portal", "http://127.0.0.1:9"])
        #expect(unreachable.status == 0 && unreachable.stdout.hasPrefix("Bangor, Maine, United States  -68.7"), "\(unreachable.stdout)")
        #expect(unreachable.stderr.contains("Searching the names on this device."))
    }

    @Test func offlineReverseNamesTheNearestPlaceAndNearTakesANameOnThisDevice() async throws {
        let result = try await run(["reverse", "--offline", "--portal", portal, "--json", "--", "-68.25,44.35"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        #expect(json["address"] is NSNull)
        let nearest = try #require(json["nearest"] as? [String: Any])
        // The point lies south-west of Bar Harbor.
        #expect(nearest["name"] as? String == "Bar Harbor" && nearest["direction"] as? String == "south-west")
        #expect(nearest["region"] as? String == "Maine, United States" && nearest["source"] as? String == "the world gazetteer")
        #expect(abs((nearest["distance"] as? Double ?? 0) - 5_600) < 300)
        let text = try await run(["reverse", "--offline", "--portal", portal, "--", "-68.25,44.35"])
        #expect(text.stdout == "5.6 km south-west of Bar Harbor, Maine, United States\n")
        let near = try await run(["search", "harbor", "--near", "Bangor, Maine", "--offline", "--limit", "1", "--portal", portal])
        #expect(near.stdout.hasPrefix("Bar Harbor"), "the Harbor nearest Bangor")
        let unknown = try await run(["search", "harbor", "--near", "Qwxzy", "--portal", portal])
        #expect(unknown.status != 0 && unknown.stderr.contains("No place called “Qwxzy” is known on this device"))
        let typo = try await run(["search", "harbor", "--near", "Bangr", "--portal", portal])
        #expect(typo.status != 0, "a point to search near is never a guess at a typo")
    }

    /// A geocoder that is down: the names on this device answer, as in the browser, and the
    /// geocoder's failure is one sentence (on standard error, or in the JSON).
    @Test func aGeocoderThatIsDownIsSaidAndTheDeviceAnswers() async throws {
        server.updateFaults { $0.geocodeDown = true }
        let result = try await run(["search", "Bangor", "--portal", portal, "--json"])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        #expect(json["source"] as? String == "device" && (json["geocoderProblem"] as? String)?.contains("503") == true)
        #expect(((json["results"] as? [[String: Any]])?.first?["label"] as? String)?.hasPrefix("Bangor") == true)
        let text = try await run(["reverse", "--portal", portal, "--", "-68.77,44.80"])
        #expect(text.status == 0 && text.stdout.contains("Bangor, Maine, United States") && text.stderr.contains("503"), "\(text.stdout) \(text.stderr)")
    }
}

@Suite("mapbook areas --near")
struct AreasNearTests {
    @Test func theNearestAreasComeFirstWithTheirDistance() async throws {
        let server = try SampleFixture.start()
        defer { server.stop() }
        let result = try await CLI.runAsync(["areas", "--portal", server.baseURL.absoluteString, "--json", "--near=-70.25,43.66"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        let areas = try #require(json["mapAreas"] as? [[String: Any]])
        #expect(areas.first?["title"] as? String == "Greater Portland" && areas.first?["distance"] as? Double == 0)
        let distances = areas.compactMap { $0["distance"] as? Double }
        #expect(distances == distances.sorted() && distances.count == areas.count)
        let named = try await CLI.runAsync(["areas", "--portal", server.baseURL.absoluteString, "--near", "Portland, Maine"])
        #expect(named.status == 0 && named.stdout.split(separator: "\n").dropFirst(2).first?.contains("Greater Portland") == true)
        let bad = try await CLI.runAsync(["areas", "--portal", server.baseURL.absoluteString, "--near", "Qwxzy"])
        #expect(bad.status != 0 && bad.stderr.contains("No place called “Qwxzy” is known on this device"))
    }
}

@Suite("mapbook pins")
struct PinsCommandTests {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-pins-cli-\(UUID())").path

    func run(_ arguments: [String]) throws -> CLIResult { try CLI.run(["pins"] + arguments + ["--data-dir", data]) }

    @Test func addListExportImportRemove() throws {
        let added = try run(["add", "--at=-68.27,44.35", "--title", "Trailhead", "--note", "Parking", "--link", "https://example.org/t", "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let feature = try #require(try JSONSerialization.jsonObject(with: added.output) as? [String: Any])
        let id = try #require((feature["properties"] as? [String: Any])?["id"] as? String)
        #expect(try run(["list"]).stdout.contains("Trailhead"))
        let exported = try run(["export", "--geojson"])
        let file = data + "/export.geojson"
        try exported.output.write(to: URL(fileURLWithPath: file))
        let imported = try run(["import", file])
        #expect(imported.stdout == "Added 1 pin.\n")
        #expect(try run(["remove", id]).status == 0)
        let listed = try #require(try JSONSerialization.jsonObject(with: try run(["list", "--json"]).output) as? [String: Any])
        #expect((listed["features"] as? [Any])?.count == 1, "the imported copy stays")
        let refused = try run(["add", "--at=0,0", "--title", "x", "--link", "javascript:alert(1)"])
        #expect(refused.status == 1 && refused.stderr == "mapbook: A pin's link must be an http or https address.\n")
    }

    /// A feature left out is a failure a script sees (exit 1), the pins added are kept.
    @Test func anImportThatLeavesOutAFeatureFails() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-pins-import-\(UUID()).geojson").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(#"""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[-68.2,44.3]},"properties":{"title":"Kept"}},
              {"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{"title":"A line"}}]}
            """#.utf8).write(to: URL(fileURLWithPath: file))
        let imported = try run(["import", file])
        #expect(imported.status == 1 && imported.stdout == "Added 1 pin; 1 left out.\n" && imported.stderr.contains("Feature 2 is not a point."), "\(imported.stderr)")
        #expect(try run(["list"]).stdout.contains("Kept"))
        // Every key there, null for none (docs/cli.md's rule).
        let listed = try #require(try JSONSerialization.jsonObject(with: try run(["list", "--json"]).output) as? [String: Any])
        let properties = try #require(((listed["features"] as? [[String: Any]])?.first)?["properties"] as? [String: Any])
        #expect(properties["note"] is NSNull && properties["link"] is NSNull, "\(properties)")
        let nothing = try run(["import", "/nonexistent.geojson"])
        #expect(nothing.status == 1)
    }
}

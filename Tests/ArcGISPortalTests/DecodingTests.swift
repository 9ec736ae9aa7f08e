import Foundation
import MapbookCore
import Testing
@testable import ArcGISPortal
import ArcGISModel
import Geometry

@Suite("Decoding REST JSON, tolerant of real-world variation")
struct DecodingTests {
    /// Recorded-shape answers with the variations real portals send (Fixtures/).
    func json(_ name: String) throws -> JSONValue {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try JSONValue(parsing: Data(contentsOf: url))
    }

    @Test func webMapItem() throws {
        let item = try #require(PortalDecoding.item(try json("item-webmap")))
        #expect(item.id == .exploreMaine)
        #expect(item.title == "Explore Maine")
        #expect(item.type == "Web Map")
        #expect(item.typeKeywords.contains("Offline"))
        #expect(item.owner == "mapbook_sample")
        #expect(item.thumbnail == "thumbnail/thumbnail.png")
        #expect(item.extent == GeoExtent(xmin: -71.0842, ymin: 42.9177, xmax: -66.9499, ymax: 47.4598))
        #expect(item.created == Date(timeIntervalSince1970: 1_521_583_200))  // epoch milliseconds
        #expect(item.modified == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(item.size == 14721)
        #expect(item.properties == nil, "properties: null")
        #expect(HTMLText.plainText(item.description ?? "") == "Maine's parks, coast and towns.\nDownload an area & take it offline.")
    }

    @Test func itemVariations() throws {
        let sparse = try JSONValue(parsing: Data(#"{"id":"ABCDEF0123456789ABCDEF0123456789","extent":[],"size":"2048","created":null,"title":null,"name":"pkg.vtpk","typeKeywords":null,"unexpected":{"a":1}}"#.utf8))
        let item = try #require(PortalDecoding.item(sparse))
        #expect(item.id.rawValue == "abcdef0123456789abcdef0123456789", "ids are case-insensitive")
        #expect(item.extent == nil)
        #expect(item.size == 2048, "numbers sent as strings")
        #expect(item.created == nil)
        #expect(item.title == "pkg.vtpk", "falls back to the file name")
        #expect(item.typeKeywords.isEmpty)
        #expect(PortalDecoding.item(try JSONValue(parsing: Data(#"{"title":"no id"}"#.utf8))) == nil)
        #expect(PortalDecoding.item(try JSONValue(parsing: Data(#"{"id":"../../etc/passwd"}"#.utf8))) == nil)
    }

    @Test func extentsOutOfRangeOrMalformedAreDropped() throws {
        for text in [#"[[-200,0],[0,10]]"#, #"[[1,2]]"#, #"[["a","b"],["c","d"]]"#, "null", "{}"] {
            #expect(PortalDecoding.cornerExtent(try JSONValue(parsing: Data(text.utf8))) == nil, "\(text)")
        }
        let swapped = try JSONValue(parsing: Data("[[10,20],[5,15]]".utf8))
        #expect(PortalDecoding.cornerExtent(swapped) == GeoExtent(xmin: 5, ymin: 15, xmax: 10, ymax: 20))
    }

    @Test func mapAreasAndTheirStatus() throws {
        let items = try json("related-map2area")["relatedItems"]!.array.compactMap(PortalDecoding.item)
        #expect(items.map(\.title) == ["Greater Portland", "Bangor", "Acadia", "Baxter State Park", "Caribou", "Boston"])
        let statuses = items.map { PortalDecoding.mapArea($0, packages: []).status }
        #expect(statuses == [.complete, .complete, .complete, .processing, .failed, .unknown])
        #expect(statuses.map(\.isDownloadable) == [true, true, true, false, false, false])
        #expect(items[0].size == nil, "size -1 means unknown")
        // Baxter has an empty item extent; its geometry comes from properties.extent.
        #expect(items[3].extent == GeoExtent(xmin: -69.10, ymin: 45.85, xmax: -68.80, ymax: 46.20))
        #expect(items[4].snippet == nil)
        #expect(items[5].created == Date(timeIntervalSince1970: 1_521_583_205), "epoch ms as a string")
    }

    @Test func areaGeometryFromPolygonInWebMercator() throws {
        let properties = try JSONValue(parsing: Data(#"{"area":{"rings":[[[-7600000,5540000],[-7560000,5540000],[-7560000,5570000],[-7600000,5540000]]],"spatialReference":{"wkid":102100}}}"#.utf8))
        let extent = try #require(PortalDecoding.areaExtent(properties))
        #expect(abs(extent.xmin - -68.2720) < 0.001)
        #expect(abs(extent.ymax - 44.6718) < 0.001)
    }

    @Test func packagesAndSize() throws {
        let packages = try json("related-area2package-bangor")["relatedItems"]!.array.compactMap(PortalDecoding.item)
        let area = MapArea(item: PortalItem(id: ItemID("e26115e1fb1343c39fbd2970fd9d3792")!, title: "Bangor", type: "Map Area"),
                           status: .complete, packages: packages.map(AreaPackage.init))
        #expect(area.packages.map(\.kind) == [.vectorTilePackage, .tilePackage])
        #expect(area.size == 30_408_704 + 5_242_880)
    }

    @Test func webMapDefinition() throws {
        let map = PortalDecoding.webMap(try json("webmap-data"))
        #expect(map.version == "2.31")
        #expect(map.basemapTitle == "Topographic")
        #expect(map.basemapLayers.map(\.layerType) == ["VectorTileLayer", "ArcGISTiledMapServiceLayer"])
        #expect(map.basemapLayers[0].styleURL?.hasSuffix("resources/styles/root.json") == true)
        #expect(map.basemapLayers[1].opacity == 1, "null opacity means opaque")
        #expect(map.operationalLayers.map(\.layerType) == ["ArcGISFeatureLayer", "GroupLayer", "SomeLayerTypeFromTheFuture"],
                "unknown types are kept; non-objects are skipped")
        #expect(map.operationalLayers[1].visible == false)
        #expect(map.operationalLayers[1].layers.map(\.title) == ["State Parks"])
        #expect(map.operationalLayers[2].opacity == 0.5)
        #expect(map.spatialReference?.isWebMercator == true)
        let initial = try #require(map.initialExtent?.geographic)
        #expect(initial.xmin < -70 && initial.xmax > -67 && initial.ymin > 42 && initial.ymax < 48)
        #expect(map.bookmarks.map(\.name) == ["Acadia", "Portland"], "a bookmark without an extent is skipped")
        #expect(map.bookmarks[1].extent.spatialReference.isWebMercator, "bookmarks inherit the map's spatial reference")
        #expect(map.offline == OfflineSettings(referenceBasemapName: "MaineBasemap.vtpk", editableLayersDownload: "features",
                                               downloadReadOnlyAttachments: false))
    }

    @Test func emptyWebMapDecodesToEmptyModel() throws {
        let map = PortalDecoding.webMap(try JSONValue(parsing: Data("{}".utf8)))
        #expect(map == WebMap())
    }
}

@Suite("ArcGIS error codes become typed errors")
struct ErrorMappingTests {
    @Test(arguments: [
        (400, "Item does not exist or is inaccessible.", PortalError.Kind.notFound),
        (400, "Invalid or missing input parameters.", .rejected(code: 400)),
        (403, "You do not have permissions to access this resource or perform this operation.", .noAccess),
        (404, "", .notFound),
        (498, "Invalid token.", .invalidToken),
        (499, "Token Required", .tokenRequired),
        (500, "Unable to complete operation.", .serverError(code: 500)),
        (503, "", .serverError(code: 503)),
        (12, "odd", .rejected(code: 12)),
    ])
    func codeMapsToKind(code: Int, message: String, kind: PortalError.Kind) {
        #expect(PortalError.kind(forArcGISCode: code, message: message) == kind)
    }

    @Test func everyKindHasOneSentenceNamingTheHost() {
        let kinds: [PortalError.Kind] = [.notFound, .noAccess, .tokenRequired, .invalidToken, .serverError(code: 500),
                                         .rejected(code: 400), .malformedResponse,
                                         .wrongItemType(expected: "Web Map", actual: "Map Area")]
        for kind in kinds {
            let error = PortalError(kind, host: "www.arcgis.com", serverMessage: "boom\u{1B}[2J", itemID: .exploreMaine)
            #expect(error.userMessage.hasSuffix("."))
            #expect(!error.userMessage.contains("\u{1B}"))
            if kind != .wrongItemType(expected: "Web Map", actual: "Map Area") {
                #expect(error.userMessage.contains("www.arcgis.com"), "\(kind)")
            }
        }
    }
}

import Foundation
import LoopbackHTTP
import MapbookCore
import TileFormats
import ArcGISModel

/// The basemap's VectorTileServer: the service description (`?f=json`), tiles at
/// `tile/{z}/{y}/{x}.pbf` (row before column, gzip'd MVT) and its styles at `resources/styles/{name}.json`
/// (`root`, and the gallery's `dark` and `labels`).
struct SampleTileService {
    let content: SampleContent
    let faults: SampleFaults
    let baseURL: String

    func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let rest = request.path.dropFirst(SampleCatalog.basemapServicePath.count).split(separator: "/").map(String.init)
        switch rest.first {
        case nil:
            guard request.query["f"] == "json" || request.query["f"] == "pjson" else { return SampleREST.html }
            return SampleREST.json(serviceJSON, pretty: request.query["f"] == "pjson")
        case "tile"? where rest.count == 4:
            guard let z = Int(rest[1]), let y = Int(rest[2]), let x = Int(rest[3].replacingOccurrences(of: ".pbf", with: "")) else {
                return .text("Not Found", status: 404)
            }
            guard let tile = content.basemap.tiles[TileKey(z: z, x: x, y: y)] else {
                return SampleREST.json(SampleREST.error(404, "Tile not found"))
            }
            var response = LoopbackResponse(status: 200, headers: [("Content-Type", "application/x-protobuf"),
                                                                   ("Content-Encoding", "gzip")],
                                            body: Deflate.deflate(tile.encoded()))
            response.delivery.bytesPerSecond = faults.bytesPerSecond
            return response
        case "resources"? where rest.count == 3 && rest[1] == "styles" && rest[2].hasSuffix(".json"):
            guard let style = SampleGallery.style(named: String(rest[2].dropLast(".json".count))) else { return .text("Not Found", status: 404) }
            return SampleREST.json(style)
        default:
            return .text("Not Found", status: 404)
        }
    }

    private var serviceJSON: JSONValue {
        let writer = VectorTilePackageWriter(name: "Explore_Maine_Basemap", title: "Explore Maine Basemap", snippet: "",
                                             extent: SampleCatalog.extent, style: SampleBasemap.style)
        // Export allowed, as an owner enables it for offline use.
        guard case .object(var json) = writer.rootJSON(maxZoom: SampleBasemap.basemapZooms.upperBound) else { return .null }
        json["exportTilesAllowed"] = .bool(true)
        json["maxExportTilesCount"] = .number(Double(SampleExportJobs.maxExportTiles))
        return .object(json)
    }
}

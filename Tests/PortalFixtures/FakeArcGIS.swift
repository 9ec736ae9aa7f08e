import Foundation
import LoopbackHTTP

/// A loopback server that answers like ArcGIS Online's REST API, from recorded-shape fixtures. It is
/// strict where the real API is: JSON only with `f=json` (HTML otherwise), relationship queries only
/// with both `relationshipType` and `direction`, unknown items as an HTTP 200 error body.
public enum FakeArcGIS {
    public static let webMapID = "3bc3179f17da44a0ac0bfdac4ad15664"
    public static let portlandID = "5dbbd50464b546a1ae4e39236f5fafa0"
    public static let bangorID = "e26115e1fb1343c39fbd2970fd9d3792"
    /// An item that needs `X-Esri-Authorization: Bearer secret-token`.
    public static let protectedID = "ffffffffffffffffffffffffffffffff"
    public static let validToken = "secret-token"
    /// A 1×1 PNG, the thumbnail of every item.
    public static let thumbnailPNG = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    public static func fixture(_ name: String) -> Data {
        let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures")!
        return try! Data(contentsOf: url)
    }

    public static func start() throws -> LoopbackServer {
        try LoopbackServer(handler: respond)
    }

    @Sendable static func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let prefix = "/sharing/rest/"
        guard request.path.hasPrefix(prefix) else { return .text("Not Found", status: 404) }
        let parts = request.path.dropFirst(prefix.count).split(separator: "/").map(String.init)
        let wantsJSON = request.query["f"] == "json" || request.query["f"] == "pjson"

        if parts == ["search"] {
            return wantsJSON ? .json(data: fixture("search-page1")) : html
        }
        guard parts.count >= 3, parts[0] == "content", parts[1] == "items" else { return .text("Not Found", status: 404) }
        let id = parts[2]

        if id == protectedID {
            switch request.headers["x-esri-authorization"] {
            case nil: return .json(data: fixture("error-token-required"))
            case "Bearer \(validToken)"?: break
            default: return .json(data: fixture("error-invalid-token"))
            }
        }
        switch Array(parts.dropFirst(3)) {
        case []:
            guard wantsJSON else { return html }
            guard let item = item(id) else { return .json(data: fixture("error-not-found")) }
            return .json(data: item)
        case ["data"]:
            guard wantsJSON else { return html }
            return id == webMapID ? .json(data: fixture("webmap-data")) : .json(data: fixture("error-not-found"))
        case ["relatedItems"]:
            guard wantsJSON else { return html }
            guard request.query["direction"] == "forward" else {
                return .json(#"{"error":{"code":400,"message":"Invalid or missing input parameters.","details":["direction"]}}"#)
            }
            switch (id, request.query["relationshipType"]) {
            case (webMapID, "Map2Area"?): return .json(data: fixture("related-map2area"))
            case (portlandID, "Area2Package"?): return .json(data: fixture("related-area2package-portland"))
            case (bangorID, "Area2Package"?): return .json(data: fixture("related-area2package-bangor"))
            case (_, "Area2Package"?), (_, "Map2Area"?): return .json(data: fixture("related-empty"))
            default:
                return .json(#"{"error":{"code":400,"message":"Invalid or missing input parameters.","details":["relationshipType"]}}"#)
            }
        case let rest where rest.first == "info":
            return item(id) == nil ? .json(data: fixture("error-not-found"))
                : LoopbackResponse(status: 200, headers: [("Content-Type", "image/png")], body: thumbnailPNG)
        default:
            return .json(data: fixture("error-not-found"))
        }
    }

    /// Without `f=json` the real API answers with an HTML page.
    static let html = LoopbackResponse(status: 200, headers: [("Content-Type", "text/html")],
                                       body: Data("<html><body>ArcGIS REST</body></html>".utf8))

    static func item(_ id: String) -> Data? {
        if id == webMapID || id == protectedID { return fixture("item-webmap") }
        let related = try! JSONSerialization.jsonObject(with: fixture("related-map2area")) as! [String: Any]
        let items = related["relatedItems"] as! [[String: Any]]
        return items.first { $0["id"] as? String == id }.map { try! JSONSerialization.data(withJSONObject: $0) }
    }
}

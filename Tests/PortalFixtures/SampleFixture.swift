import Foundation
import MapbookCore
import OfflineLibrary
import SamplePortal
import HTTP

/// The sample portal for tests: its content is built afresh once per test process (in a temporary
/// folder, never the user's cache, and never from a cache a previous build left), and each test
/// starts its own server on a free port.
public enum SampleFixture {
    public static let webMapID = SampleCatalog.webMapID
    public static let portlandID = "5dbbd50464b546a1ae4e39236f5fafa0"
    public static let bangorID = "e26115e1fb1343c39fbd2970fd9d3792"

    public static let content: SampleContent = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-tests-sample-portal")
        do {
            return try SampleContent.build(cacheDirectory: folder, useCache: false)
        } catch {
            fatalError("the sample portal's content cannot be built: \(error)")
        }
    }()

    public static func start(faults: SampleFaults = SampleFaults()) throws -> SamplePortal {
        try SamplePortal(content: content, faults: faults)
    }

    /// An empty offline library in a fresh temporary folder.
    public static func scratchLibrary() -> OfflineLibrary {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-test-library-\(UUID())").path
        return OfflineLibrary(root: root, portalKey: "tests", webMap: .exploreMaine)
    }

    /// The Acadia area's vector tile package, as the sample portal serves it, in a temporary file.
    public static let acadiaPackagePath: String = {
        let package = content.packages.values.first { $0.name.contains("Acadia") }!
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-tests-acadia-\(UUID()).vtpk").path
        _ = FileManager.default.createFile(atPath: path, contents: package.data)
        return path
    }()

    public static var portland: SampleArea { SampleCatalog.area(id: portlandID)! }
    public static var bangor: SampleArea { SampleCatalog.area(id: bangorID)! }
}

extension SampleFixture {
    /// The attributes of the portal's FeatureServer features that meet `where` (its REST `query`,
    /// asked over plain HTTP, not through mapbook's client): what the server holds.
    public static func held(by portal: SamplePortal, layer: Int, where clause: String) async throws -> [[String: JSONValue]] {
        var components = URLComponents(string: portal.baseURL.absoluteString + "/arcgis/rest/services/Explore_Maine_Places/FeatureServer/\(layer)/query")!
        components.queryItems = [URLQueryItem(name: "where", value: clause), URLQueryItem(name: "outFields", value: "*"),
                                 URLQueryItem(name: "returnGeometry", value: "false"), URLQueryItem(name: "f", value: "json")]
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        let answer = try await HTTPClient(configuration: HTTPConfiguration(retry: .none)).send(HTTPRequest(url: components.url!))
        let json = try JSONValue(parsing: answer.body)
        return json["features"]?.array.compactMap { $0["attributes"]?.object } ?? []
    }

    /// The body of a GET of `address` (plain HTTP, not mapbook's client).
    public static func fetch(_ address: String) async throws -> Data {
        try await HTTPClient(configuration: HTTPConfiguration(retry: .none)).send(HTTPRequest(url: URL(string: address)!)).body
    }

    /// `GET /admin/faults?…` on the portal: faults, or a colleague's edit (`officeEdit`, `officeDelete=OBJECTID`).
    public static func admin(_ portal: SamplePortal, _ query: String) async throws {
        _ = try await HTTPClient(configuration: HTTPConfiguration(retry: .none)).send(HTTPRequest(url: URL(string: portal.baseURL.absoluteString + "/admin/faults?" + query)!))
    }
}

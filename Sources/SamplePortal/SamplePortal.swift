import Foundation
import Synchronization
import LoopbackHTTP
import MapbookCore
import TileFormats

/// A local stand-in for ArcGIS Online serving Explore Maine on 127.0.0.1: the same REST paths,
/// parameters, JSON shapes and error bodies as www.arcgis.com, package downloads with ranges, a
/// VectorTileServer for the basemap, and faults to inject (`SampleFaults`).
public final class SamplePortal: Sendable {
    public let content: SampleContent
    private let server: LoopbackServer
    private let router: SampleRouter

    /// Starts serving on `port` (0 picks a free one). `log` receives one line per request.
    public init(content: SampleContent, port: UInt16 = 0, faults: SampleFaults = SampleFaults(),
                log: (@Sendable (String) -> Void)? = nil) throws {
        self.content = content
        let router = SampleRouter(content: content, faults: faults, log: log)
        server = try LoopbackServer(port: port, handler: router.respond)
        router.attach(server)
        self.router = router
    }

    /// `http://127.0.0.1:PORT`: pass it as `--portal`.
    public var baseURL: URL { server.baseURL }
    public var port: UInt16 { server.port }
    public var faults: SampleFaults { router.faults }
    /// Every request received, in order (tests read the `Range` headers here).
    public var requests: [LoopbackRequest] { server.requests }

    public func updateFaults(_ change: (inout SampleFaults) throws -> Void) rethrows { try router.updateFaults(change) }

    /// An outage refuses every connection until it ends (`false`), as a dead network would.
    public func setOutage(_ on: Bool) throws {
        if on { server.suspend() } else { try server.resume() }
    }

    public var isInOutage: Bool { server.isSuspended }

    /// Lets package downloads held by the `hold` fault go on (for good).
    public func releaseHeldDownloads() { router.heldDownloads.open() }

    public func stop() { server.stop() }
}

/// Answers requests; holds the fault settings, which change at run time.
final class SampleRouter: Sendable {
    let content: SampleContent
    /// Codes and tokens issued, kept across requests.
    let auth = SampleAuth()
    /// What package downloads held by the `hold` fault wait for.
    let heldDownloads = LoopbackGate()
    /// The FeatureServer's features as this portal's edits left them.
    let features: SampleFeatureStore
    private let log: (@Sendable (String) -> Void)?
    private struct State {
        var faults: SampleFaults
        weak var server: LoopbackServer?
        var servedStatusFaults = 0
        var disruptedDownloads = 0
        var cutEditAnswers = 0
        var officeEdits = 0
    }
    private let state: Mutex<State>

    init(content: SampleContent, faults: SampleFaults, log: (@Sendable (String) -> Void)?) {
        self.content = content; state = Mutex(State(faults: faults)); self.log = log
        features = content.featureServer.makeStore()
    }

    func attach(_ server: LoopbackServer) { state.withLock { $0.server = server } }

    var faults: SampleFaults { state.withLock { $0.faults } }

    func updateFaults(_ change: (inout SampleFaults) throws -> Void) rethrows {
        // Worked out outside the lock: `change` may throw, and Mutex.withLock takes no rethrowing body.
        var faults = self.faults
        try change(&faults)
        state.withLock {
            $0.faults = faults
            $0.servedStatusFaults = 0
            $0.disruptedDownloads = 0
            $0.cutEditAnswers = 0
        }
    }

    var baseURL: String { state.withLock { $0.server?.baseURL.absoluteString } ?? "http://127.0.0.1" }

    @Sendable func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let response = Self.validated(route(request), for: request)
        if let log {
            // What a client sent is untrusted: no escape sequence reaches the terminal through the log.
            let range = request.headers["range"].map { " Range: \($0)" } ?? ""
            let line = "\(request.method) \(Self.redacted(request.target))\(range)"
            log("\(TerminalText.sanitizedLine(line, maxLength: 2048)) → \(response.status) \(response.body.count) bytes")
        }
        return response
    }

    /// Answers that have no validator yet (JSON, thumbnails) get an ETag of their bytes; asked
    /// with that ETag in `If-None-Match`, the answer is 304 with no body, as a CDN in front of a
    /// portal answers. Packages and tiles have validators of their own.
    static func validated(_ response: LoopbackResponse, for request: LoopbackRequest) -> LoopbackResponse {
        guard request.method == "GET", response.status == 200, request.path != "/admin/faults",
              !response.headers.contains(where: { $0.0.lowercased() == "etag" }) else { return response }
        let etag = SampleContent.etag(of: response.body)
        if request.headers["if-none-match"] == etag {
            return LoopbackResponse(status: 304, headers: [("ETag", etag)])
        }
        var answered = response
        answered.headers.append(("ETag", etag))
        return answered
    }

    /// Tokens never reach the log, even when a client puts one in a URL.
    static func redacted(_ target: String) -> String {
        target.replacingOccurrences(of: #"([?&]token=)[^&]*"#, with: "$1…", options: .regularExpression)
    }

    private func route(_ request: LoopbackRequest) -> LoopbackResponse {
        if request.path == "/admin/faults" { return admin(request) }
        var faults = self.faults
        if Self.isPackageDownload(request), !takeDisruption(limit: faults.disruptedDownloads) {
            faults.dropAfterBytes = nil
            faults.stallAfterBytes = nil
        }
        if faults.hangUp {
            var closed = LoopbackResponse(status: 200)
            closed.delivery.hangUp = true
            return closed
        }
        if faults.latencyMilliseconds > 0 { Thread.sleep(forTimeInterval: Double(faults.latencyMilliseconds) / 1000) }
        if let status = faults.errorStatus, takeStatusFault(limit: faults.errorCount) {
            var headers = [("Content-Type", "text/html")]
            if let after = faults.retryAfterSeconds { headers.append(("Retry-After", String(after))) }
            return LoopbackResponse(status: status, headers: headers, body: Data("<html><body>Service unavailable</body></html>".utf8))
        }
        if request.path == "/sharing/rest" || request.path == "/sharing/rest/" {
            // The REST root, as ArcGIS Online answers it: the API version.
            return SampleREST.json(.object(["currentVersion": .string("2025.1")]))
        }
        if request.path.hasPrefix("/sharing/rest/") {
            return SampleREST(content: content, faults: faults, baseURL: baseURL, auth: auth, heldDownloads: heldDownloads).respond(request)
        }
        if request.path.hasPrefix(SampleGeocoder.path) {
            return content.geocoder.respond(request, down: faults.geocodeDown)
        }
        if request.path.hasPrefix(SampleRouteService.path) || request.path.hasPrefix(SampleRouteService.utilitiesPath) {
            let signedIn: Bool
            if case .user = auth.caller(request, faults: faults) { signedIn = true } else { signedIn = false }
            return content.routes.respond(request, down: faults.routeDown, noRoute: faults.noRoute, signedIn: signedIn,
                                          needsSignIn: faults.routeNeedsSignIn)
        }
        if request.path.hasPrefix(SampleExportJobs.outputPath + "/") {
            let rest = request.path.dropFirst(SampleExportJobs.outputPath.count).split(separator: "/").map(String.init)
            return exportRoutes(faults).outputFile(rest, request)
        }
        if request.path.hasPrefix(SampleFeatureServer.path + "/createReplica") || request.path.hasPrefix(SampleFeatureServer.path + "/replicas/") {
            if faults.featuresDown { return content.featureServer.respond(request, store: features, down: true) }
            let rest = request.path.dropFirst(SampleFeatureServer.path.count).split(separator: "/").map(String.init)
            return exportRoutes(faults).featureService(rest, request)
        }
        if request.path.hasPrefix(SampleFeatureServer.path) {
            let cut = (request.path.hasSuffix("/applyEdits") || request.path.hasSuffix("/addAttachment")) && state.withLock {
                guard $0.cutEditAnswers < faults.cutEditAnswers else { return false }
                $0.cutEditAnswers += 1
                return true
            }
            return content.featureServer.respond(request, store: features, down: faults.featuresDown, cutAnswer: cut, readOnly: faults.readOnlyFeatures)
        }
        if request.path.hasPrefix(SampleMapService.path) {
            return SampleMapService(content.featureServer).respond(request)
        }
        if request.path.hasPrefix(SampleGallery.rasterServicePath) {
            return SampleMapServer.topographic(content.rasterTiles).respond(request)
        }
        if request.path.hasPrefix(SampleMapServer.surveyPath) {
            guard let tiles = content.surveyTiles else { return .text("Not Found", status: 404) }
            return SampleMapServer.survey(tiles).respond(request)
        }
        if request.path.hasPrefix(SampleCatalog.basemapServicePath) {
            let rest = request.path.dropFirst(SampleCatalog.basemapServicePath.count).split(separator: "/").map(String.init)
            if ["exportTiles", "estimateExportTilesSize", "jobs"].contains(rest.first ?? "") {
                return exportRoutes(faults).tileService(rest, request)
            }
            return SampleTileService(content: content, faults: faults, baseURL: baseURL).respond(request)
        }
        return .text("Not Found", status: 404)
    }

    private func exportRoutes(_ faults: SampleFaults) -> SampleExportRoutes {
        SampleExportRoutes(content: content, faults: faults, baseURL: baseURL, auth: auth, heldDownloads: heldDownloads)
    }

    /// Whether this request gets the status fault: always with no count, else the first `limit`.
    private func takeStatusFault(limit: Int) -> Bool {
        state.withLock {
            guard limit == 0 || $0.servedStatusFaults < limit else { return false }
            $0.servedStatusFaults += 1
            return true
        }
    }

    /// Whether this package download gets `drop` and `stall`: always with no limit, else the first `limit`.
    private func takeDisruption(limit: Int) -> Bool {
        state.withLock {
            guard limit == 0 || $0.disruptedDownloads < limit else { return false }
            $0.disruptedDownloads += 1
            return true
        }
    }

    static func isPackageDownload(_ request: LoopbackRequest) -> Bool {
        let parts = request.path.split(separator: "/")
        return parts.count == 6 && parts.last == "data" && SampleCatalog.area(packageID: String(parts[4])) != nil
    }

    /// `GET /admin/faults?key=value&…`: changes faults (same keys as `--faults`) and shows them.
    /// `outage=SECONDS` refuses every connection for that long, then recovers. `officeEdit[=OBJECTID]`
    /// changes the FeatureServer's features as a colleague at the office would (that place, else the
    /// first, renamed, and one added beside it); `officeDelete=OBJECTID` deletes a place.
    private func admin(_ request: LoopbackRequest) -> LoopbackResponse {
        // `reset` first, whatever its place in the query: `?reset&corrupt` means a clean slate, then corrupt.
        let settings = request.query.filter { $0.key != "f" }.sorted { ($0.key == "reset" ? 0 : 1, $0.key) < ($1.key == "reset" ? 0 : 1, $1.key) }
            .map { ($0.key, $0.value) }
        do {
            try updateFaults { try $0.apply(settings) }
        } catch {
            return .json(#"{"error":{"code":400,"message":"\#(error)"}}"#, status: 400)
        }
        if let seconds = settings.first(where: { $0.0 == "outage" }).flatMap({ Double($0.1) }), seconds > 0,
           let server = state.withLock({ $0.server }) {
            // Answer first, then drop off the network.
            Task {
                try? await Task.sleep(for: .milliseconds(50))
                server.suspend()
                try? await Task.sleep(for: .seconds(seconds))
                try? server.resume()
            }
        }
        if let edit = settings.first(where: { $0.0 == "officeEdit" }) {
            features.changeBySomeoneElse(objectID: Int64(edit.1), stamp: state.withLock { $0.officeEdits += 1; return $0.officeEdits })
        }
        if let objectID = settings.first(where: { $0.0 == "officeDelete" }).flatMap({ Int64($0.1) }) {
            _ = features.apply([.init(layer: 0, adds: [], updates: [], deletes: [.number(Double(objectID))])],
                                                  useGlobalIds: false, rollbackOnFailure: false)
        }
        return SampleREST.json(faults.json)
    }
}

extension SampleFaults {
    var json: JSONValue {
        func number(_ n: Int?) -> JSONValue { n.map { .number(Double($0)) } ?? .null }
        return .object([
            "latency": .number(Double(latencyMilliseconds)), "bandwidth": number(bytesPerSecond),
            "drop": number(dropAfterBytes), "status": number(errorStatus), "retryAfter": number(retryAfterSeconds),
            "count": .number(Double(errorCount)), "stall": number(stallAfterBytes), "stallSeconds": .number(Double(stallSeconds)), "hold": number(holdAfterBytes),
            "times": .number(Double(disruptedDownloads)), "hangup": .bool(hangUp),
            "geocodeDown": .bool(geocodeDown), "featuresDown": .bool(featuresDown), "editsCut": .number(Double(cutEditAnswers)), "readOnly": .bool(readOnlyFeatures),
            "tokenExpiry": number(tokenExpirySeconds), "revoked": .bool(revoked),
            "ignoreRange": .bool(ignoreRange), "jobs": exportJobs.map(JSONValue.string) ?? .null, "wrongLength": .bool(wrongLength), "corrupt": .bool(corrupt),
            "areaStatus": .object(areaStatus.mapValues { .string($0) }),
            "updates": .object(updates.mapValues { .number(Double($0)) }),
        ])
    }
}

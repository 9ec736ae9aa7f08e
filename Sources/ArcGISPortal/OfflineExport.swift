import Foundation
import HTTP
import MapbookCore
import ArcGISModel
import Geometry

public struct OfflineExportError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}

/// Where a server job is watched from: a tile service's `jobs/<jobId>`, or a replica's `statusUrl`.
public struct ServiceJob: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case tiles, replica }
    public var kind: Kind
    public var url: String

    public init(kind: Kind, url: String) { self.kind = kind; self.url = url }
}

/// A job's state as last read, and where its result is once it succeeded.
public struct ServiceJobReport: Sendable, Equatable {
    public var status: ServiceJobStatus
    /// The package's address (and size, when the server said) once the job succeeded.
    public var resultURL: URL?
    public var resultSize: Int64?
}

/// The REST operations that take part of a map offline on demand (docs/on-demand.md): a tile
/// service's `estimateExportTilesSize` and `exportTiles` (asynchronous jobs read at `jobs/<jobId>`,
/// their package at `results/out_service_url`), a feature service's `createReplica` (`async=true`,
/// watched at its `statusUrl`, the geodatabase at `resultUrl`), and a job's `cancel`. Every address a
/// server names is asked with the same token rules as the portal's own (`mayCarryToken`).
extension PortalClient {
    /// A service's description (`{url}?f=json`): `exportTilesAllowed`, `maxExportTilesCount`,
    /// `capabilities`, `syncEnabled`, its levels.
    public func serviceDescription(_ url: URL) async throws -> JSONValue {
        await learnFederation(of: url)
        return try await getJSON(url, [], query: [])
    }

    /// The parameters every tile export and estimate sends: the extent in WGS84 as an envelope with
    /// its spatial reference, and the levels as a range.
    static func tileExportQuery(kind: OnDemandLayer.Kind, extent: GeoExtent, levels: ClosedRange<Int>) -> [(String, String)] {
        var query: [(String, String)] = [("exportBy", "LevelID"), ("levels", "\(levels.lowerBound)-\(levels.upperBound)"),
                                         ("exportExtent", envelope(extent))]
        if kind == .rasterTiles {
            query = [("tilePackage", "true")] + query + [("storageFormatType", "esriMapCacheStorageModeCompactV2")]
        }
        return query
    }

    /// Submits `exportTiles` and answers the job to watch.
    public func submitTileExport(_ layer: OnDemandLayer, extent: GeoExtent, levels: ClosedRange<Int>) async throws -> ServiceJob {
        let service = try serviceURL(layer)
        let json = try await getJSON(service, ["exportTiles"], query: Self.tileExportQuery(kind: layer.kind, extent: extent, levels: levels))
        return try tileJob(json, service: service, operation: "exportTiles")
    }

    /// `estimateExportTilesSize`, submitted and watched to its end (at most `patience`).
    public func estimateTileExport(_ layer: OnDemandLayer, extent: GeoExtent, levels: ClosedRange<Int>,
                                   patience: Duration = .seconds(60)) async throws -> TileExportEstimate {
        let service = try serviceURL(layer)
        let json = try await getJSON(service, ["estimateExportTilesSize"],
                                     query: Self.tileExportQuery(kind: layer.kind, extent: extent, levels: levels))
        let job = try tileJob(json, service: service, operation: "estimateExportTilesSize")
        let started = ContinuousClock.now
        var wait = Duration.milliseconds(200)
        while true {
            let report = try await jobStatus(job, readResult: false)
            switch report.status {
            case .succeeded:
                let answer = try await getJSON(try jobURL(job), ["results", "out_service_url"], query: [])
                guard let estimate = TileExportEstimate(json: answer) else {
                    throw OfflineExportError("\(layer.title) gave an estimate mapbook cannot read.")
                }
                return estimate
            case .failed(let reason): throw OfflineExportError("\(layer.title) could not estimate the export: \(reason)")
            case .cancelled: throw OfflineExportError("\(layer.title) cancelled the estimate.")
            case .waiting, .running:
                guard ContinuousClock.now - started < patience else {
                    throw OfflineExportError("\(layer.title) did not finish its estimate within \(Int(patience.components.seconds)) s.")
                }
                try await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(3))
            }
        }
    }

    /// `createReplica` of the feature service's layers that meet `extent`: sync-enabled per layer
    /// (so the area's edits can go back), a mobile geodatabase, no attachments, asynchronous. A POST,
    /// as the parameters can be long.
    public func submitReplica(_ layer: OnDemandLayer, extent: GeoExtent, name: String) async throws -> ServiceJob {
        let service = try serviceURL(layer)
        let form: [(String, String)] = [
            ("replicaName", name), ("layers", layer.layerIDs.map(String.init).joined(separator: ",")),
            ("geometry", Self.envelope(extent)), ("geometryType", "esriGeometryEnvelope"), ("inSR", "4326"),
            ("returnAttachments", "false"), ("syncModel", "perLayer"), ("dataFormat", "sqlite"),
            ("transportType", "esriTransportTypeUrl"), ("async", "true"),
        ]
        let json = try await getJSON(formPost(base: service, ["createReplica"], form: form), about: nil)
        guard let status = json["statusUrl"]?.string, let url = Self.serverAddress(status) else {
            throw OfflineExportError("\(layer.title) did not say where to follow its replica.")
        }
        return ServiceJob(kind: .replica, url: url.absoluteString)
    }

    /// The job's state; once it succeeded, where its package is (`readResult`).
    public func jobStatus(_ job: ServiceJob, readResult: Bool = true) async throws -> ServiceJobReport {
        let url = try jobURL(job)
        let json = try await getJSON(url, [], query: [])
        switch job.kind {
        case .replica:
            let status = ServiceJobStatus(replica: json)
            guard status == .succeeded else { return ServiceJobReport(status: status) }
            guard let result = json["resultUrl"]?.string.flatMap(Self.serverAddress) else {
                return ServiceJobReport(status: .failed("the server finished the replica but named no file"))
            }
            return ServiceJobReport(status: status, resultURL: result)
        case .tiles:
            let status = ServiceJobStatus(job: json)
            guard status == .succeeded, readResult else { return ServiceJobReport(status: status) }
            let answer = try await getJSON(url, ["results", "out_service_url"], query: [])
            guard let (result, size) = Self.packageAddress(answer["value"]) else {
                return ServiceJobReport(status: .failed("the server finished the export but named no package"))
            }
            return ServiceJobReport(status: status, resultURL: result, resultSize: size)
        }
    }

    /// Asks the server to stop the job (`{job}/cancel`, a tile service's); a replica cannot be
    /// cancelled and is only forgotten. Failure to cancel is not an error: the job is forgotten anyway.
    public func cancelJob(_ job: ServiceJob) async {
        guard job.kind == .tiles, let url = try? jobURL(job) else { return }
        _ = try? await getJSON(formPost(base: url, ["cancel"], form: []), about: nil)
    }

    /// The request for an exported package's bytes, with the token only where the portal vouches.
    public func exportResultRequest(_ url: URL) -> HTTPRequest { request(url: url) }

    // MARK: -

    private func serviceURL(_ layer: OnDemandLayer) throws -> URL {
        guard let url = Self.serverAddress(layer.serviceURL) else {
            throw OfflineExportError("\(layer.title) has no address mapbook can ask.")
        }
        return url
    }

    private func jobURL(_ job: ServiceJob) throws -> URL {
        guard let url = Self.serverAddress(job.url) else { throw OfflineExportError("A server job has no address mapbook can ask.") }
        return url
    }

    /// `{"jobId": "j…", "jobStatus": "esriJobSubmitted"}` → `{service}/jobs/{jobId}`.
    private func tileJob(_ json: JSONValue, service: URL, operation: String) throws -> ServiceJob {
        guard let id = json["jobId"]?.string, !id.isEmpty, id.utf8.count <= 128,
              id.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" }) else {
            throw OfflineExportError("The server did not start \(operation): it gave no job id.")
        }
        return ServiceJob(kind: .tiles, url: service.appendingPathComponent("jobs").appendingPathComponent(id).absoluteString)
    }

    /// An extent as an Esri JSON envelope in WGS84, with its spatial reference.
    static func envelope(_ extent: GeoExtent) -> String {
        #"{"xmin":\#(extent.xmin),"ymin":\#(extent.ymin),"xmax":\#(extent.xmax),"ymax":\#(extent.ymax),"spatialReference":{"wkid":4326}}"#
    }

    /// An address a server gave: http or https, nothing else.
    static func serverAddress(_ text: String) -> URL? {
        guard text.utf8.count <= 4096, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false else { return nil }
        return url
    }

    /// `out_service_url`'s value: the package's address as a string, or `{"url": …, "files": [{"url", "size"}]}`
    /// (a folder and the files in it); the first package file named.
    static func packageAddress(_ value: JSONValue?) -> (URL, Int64?)? {
        let packageExtensions = ["vtpk", "tpk", "tpkx"]
        if let text = value?.string, let url = serverAddress(text) {
            return (packageExtensions.contains(url.pathExtension.lowercased()) ? url : url.appendingPathComponent("Layers.tpkx"), nil)
        }
        for file in value?["files"]?.array ?? [] {
            guard let url = file["url"]?.string.flatMap(serverAddress), packageExtensions.contains(url.pathExtension.lowercased()) else { continue }
            let size = file["size"]?.double.flatMap { $0 > 0 && $0 < 1e15 ? Int64($0) : nil }
            return (url, size)
        }
        return value?["url"]?.string.flatMap(serverAddress).map { ($0.appendingPathComponent("Layers.tpkx"), nil) }
    }
}

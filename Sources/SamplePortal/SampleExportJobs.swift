import Foundation
import Synchronization
import Geometry
import LoopbackHTTP
import MapbookCore
import TileFormats
import ArcGISModel
import Geodatabase

/// The sample's asynchronous offline jobs, in ArcGIS's shapes: the VectorTileServer's
/// `exportTiles` and `estimateExportTilesSize` (a job at `jobs/<jobId>`, its answer at
/// `jobs/<jobId>/results/out_service_url`, `cancel`), and the FeatureServer's `createReplica`
/// (`async=true`: a `statusUrl` at `replicas/jobs/<id>`, the geodatabase at its `resultUrl`).
/// Output files are served from `/arcgis/rest/directories/arcgisoutput/<jobId>/<file>`. The work is
/// done in the background from submission, as a server's; a job moves on one step each time it is
/// asked about (submitted → executing 40 % → 80 % → succeeded once its work is done), so tests see
/// every state without waiting; the `jobs` fault makes jobs fail, never finish, or lose their file.
final class SampleExportJobs: Sendable {
    static let outputPath = "/arcgis/rest/directories/arcgisoutput"
    /// The most tiles the VectorTileServer exports at once, as its `maxExportTilesCount` says.
    static let maxExportTiles = 100_000

    enum Kind: Sendable { case estimate, tiles, replica }

    struct Job: Sendable {
        var id: String
        var kind: Kind
        var extent: GeoExtent
        var levels: ClosedRange<Int>
        var layers: [Int]
        var polls = 0
        var cancelled = false
        /// The output file, or the estimate: the job's work, done in the background.
        var file: (name: String, data: Data)?
        var estimate: (tiles: Int, bytes: Int64)?
        var isDone: Bool { file != nil || estimate != nil }
    }

    private let jobs = Mutex<[String: Job]>([:])
    private let counter = Atomic<Int>(0)
    /// Jobs kept, with their files: a portal left running for days forgets the oldest.
    static let kept = 64

    func submit(_ kind: Kind, extent: GeoExtent, levels: ClosedRange<Int> = 0...0, layers: [Int] = []) -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        let id = String(format: "j%08x%@", number, kind == .replica ? "rp" : "et")
        jobs.withLock { jobs in
            jobs[id] = Job(id: id, kind: kind, extent: extent, levels: levels, layers: layers)
            // Ids grow with the counter (fixed width): the smallest is the oldest.
            if jobs.count > Self.kept, let oldest = jobs.keys.min() { jobs[oldest] = nil }
        }
        return id
    }

    /// The job, one step further on (none once it is finished, cancelled, or held by the `stuck` fault).
    func advance(_ id: String, fault: String?) -> Job? {
        jobs.withLock { jobs in
            guard var job = jobs[id] else { return nil }
            if !job.cancelled, job.polls < 3, !(job.polls == 2 && (fault == "stuck" || !job.isDone)) { job.polls += 1 }
            jobs[id] = job
            return job
        }
    }

    func cancel(_ id: String) -> Job? {
        jobs.withLock { jobs in
            jobs[id]?.cancelled = true
            return jobs[id]
        }
    }

    func job(_ id: String) -> Job? { jobs.withLock { $0[id] } }

    func keep(_ file: (name: String, data: Data), for id: String) { jobs.withLock { $0[id]?.file = file } }

    func keep(_ estimate: (tiles: Int, bytes: Int64), for id: String) { jobs.withLock { $0[id]?.estimate = estimate } }
}

/// Answers the job routes of the tile service and the feature service.
struct SampleExportRoutes {
    let content: SampleContent
    let faults: SampleFaults
    let baseURL: String
    let auth: SampleAuth
    let heldDownloads: LoopbackGate

    private var jobs: SampleExportJobs { content.exportJobs }

    /// `exportTiles` and `estimateExportTilesSize` on the VectorTileServer, and its `jobs/…`.
    func tileService(_ rest: [String], _ request: LoopbackRequest) -> LoopbackResponse {
        let parameters = Self.parameters(request)
        switch rest.first {
        case "exportTiles", "estimateExportTilesSize":
            guard let extent = Self.envelope(parameters["exportExtent"] ?? ""), let levels = Self.levels(parameters["levels"] ?? "") else {
                return SampleREST.json(SampleREST.error(400, "Invalid or missing input parameters.",
                                                        details: ["exportExtent and levels (for example 0-14) are required."]))
            }
            let count = TileGrid.tileCount(extent, levels: levels)
            if count > SampleExportJobs.maxExportTiles {
                return SampleREST.json(SampleREST.error(400, "Requested tile count (\(count)) exceeds the maximum allowed number of tiles (\(SampleExportJobs.maxExportTiles)) to be exported for service Explore_Maine_Basemap."))
            }
            let id = jobs.submit(rest[0] == "exportTiles" ? .tiles : .estimate, extent: extent, levels: levels)
            work(id)
            return SampleREST.json(.object(["jobId": .string(id), "jobStatus": .string("esriJobSubmitted")]))
        case "jobs" where rest.count >= 2:
            return tileJob(rest[1], Array(rest.dropFirst(2)), request)
        default:
            return .text("Not Found", status: 404)
        }
    }

    private func tileJob(_ id: String, _ rest: [String], _ request: LoopbackRequest) -> LoopbackResponse {
        guard jobs.job(id) != nil else { return SampleREST.json(SampleREST.error(404, "Job not found.")) }
        switch rest.first {
        case nil:
            guard let job = jobs.advance(id, fault: faults.exportJobs) else { return SampleREST.json(SampleREST.error(404, "Job not found.")) }
            return SampleREST.json(tileJobJSON(job))
        case "cancel":
            guard let job = jobs.cancel(id) else { return SampleREST.json(SampleREST.error(404, "Job not found.")) }
            return SampleREST.json(tileJobJSON(job))
        case "results" where rest.count == 2 && rest[1] == "out_service_url":
            guard let job = jobs.job(id), job.polls >= 3, !job.cancelled, faults.exportJobs != "fail" else {
                return SampleREST.json(SampleREST.error(400, "The job has no results."))
            }
            if job.kind == .estimate, let estimate = job.estimate {
                return SampleREST.json(.object(["paramName": .string("out_service_url"), "dataType": .string("GPString"),
                                                "value": .object(["totalSize": .number(Double(estimate.bytes)),
                                                                  "totalTilesToExport": .number(Double(estimate.tiles))])]))
            }
            guard let file = job.file else { return SampleREST.json(SampleREST.error(400, "The job has no results.")) }
            let folder = baseURL + SampleExportJobs.outputPath + "/" + id
            return SampleREST.json(.object(["paramName": .string("out_service_url"), "dataType": .string("GPString"),
                                            "value": .object(["url": .string(folder), "files": .array([.object([
                                                "name": .string(file.name), "url": .string(folder + "/" + file.name),
                                                "size": .number(Double(file.data.count))])])])]))
        default:
            return .text("Not Found", status: 404)
        }
    }

    private func tileJobJSON(_ job: SampleExportJobs.Job) -> JSONValue {
        let status: String, percent: Int
        var messages: [JSONValue] = [.object(["type": .string("esriJobMessageTypeInformative"), "description": .string("Submitted.")])]
        switch (job.cancelled, job.polls, faults.exportJobs) {
        case (true, _, _): status = "esriJobCancelled"; percent = 0
        case (_, 3, "fail"):
            status = "esriJobFailed"; percent = 80
            messages.append(.object(["type": .string("esriJobMessageTypeError"),
                                     "description": .string("Error exporting tiles: the cache storage could not be written.")]))
        case (_, 3, _): status = "esriJobSucceeded"; percent = 100
        case (_, 0, _): status = "esriJobSubmitted"; percent = 0
        case (_, let polls, _): status = "esriJobExecuting"; percent = polls * 40
        }
        var json: [String: JSONValue] = ["jobId": .string(job.id), "jobStatus": .string(status), "messages": .array(messages),
                                         "progress": .object(["type": .string("default"), "percent": .number(Double(percent))])]
        if status == "esriJobSucceeded" {
            json["results"] = .object(["out_service_url": .object(["paramUrl": .string("results/out_service_url")])])
        }
        return .object(json)
    }

    /// `createReplica` on the FeatureServer (a POST of the form ArcGIS takes) and its `replicas/jobs/<id>`.
    func featureService(_ rest: [String], _ request: LoopbackRequest) -> LoopbackResponse {
        let parameters = Self.parameters(request)
        switch rest.first {
        case "createReplica":
            guard parameters["async"] == "true", parameters["dataFormat"] == "sqlite",
                  parameters["geometryType"] == "esriGeometryEnvelope", let extent = Self.envelope(parameters["geometry"] ?? "") else {
                return SampleREST.json(SampleREST.error(400, "Invalid or missing input parameters.",
                                                        details: ["async=true, dataFormat=sqlite and an envelope geometry are required."]))
            }
            guard ["none", "perLayer", "perReplica"].contains(parameters["syncModel"] ?? "none") else {
                return SampleREST.json(SampleREST.error(400, "Invalid or missing input parameters.", details: ["Invalid syncModel."]))
            }
            let layers = (parameters["layers"] ?? "").split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !layers.isEmpty, layers.allSatisfy(SampleAreaGeodatabase.tables.indices.contains) else {
                return SampleREST.json(SampleREST.error(400, "Invalid or missing input parameters.", details: ["Invalid layers."]))
            }
            let id = jobs.submit(.replica, extent: extent, layers: layers)
            work(id)
            return SampleREST.json(.object(["statusUrl": .string(baseURL + SampleFeatureServer.path + "/replicas/jobs/" + id)]))
        case "replicas" where rest.count == 3 && rest[1] == "jobs":
            guard let job = jobs.advance(rest[2], fault: faults.exportJobs) else { return SampleREST.json(SampleREST.error(404, "Job not found.")) }
            var json: [String: JSONValue] = ["responseType": .string("esriReplicaResponseTypeData"), "transportType": .string("esriTransportTypeUrl")]
            switch (job.polls, faults.exportJobs) {
            case (3, "fail"):
                json["status"] = .string("Failed")
                json["message"] = .string("Unable to create replica: the geodatabase could not be written.")
            case (3, _):
                json["status"] = .string("Completed")
                json["resultUrl"] = .string(baseURL + SampleExportJobs.outputPath + "/" + job.id + "/" + (job.file?.name ?? ""))
            case (0, _): json["status"] = .string("Pending")
            default: json["status"] = .string("ExportingData")
            }
            return SampleREST.json(.object(json))
        default:
            return .text("Not Found", status: 404)
        }
    }

    /// `arcgisoutput/<jobId>/<file>`: the job's file with ranges and the download faults; gone under
    /// the `lost` fault.
    func outputFile(_ rest: [String], _ request: LoopbackRequest) -> LoopbackResponse {
        guard rest.count == 2, faults.exportJobs != "lost", let job = jobs.job(rest[0]), job.polls >= 3, !job.cancelled else {
            return .text("Not Found", status: 404)
        }
        guard let file = job.file, file.name == rest[1] else { return .text("Not Found", status: 404) }
        return SampleREST(content: content, faults: faults, baseURL: baseURL, auth: auth, heldDownloads: heldDownloads)
            .fileData(file.data, named: file.name, modified: Date(timeIntervalSince1970: Double(SampleCatalog.modified) / 1000), request)
    }

    // MARK: The files

    /// Does the job's work on a thread of its own, as a server's job runs apart from the requests
    /// that follow it.
    private func work(_ id: String) {
        guard let job = jobs.job(id) else { return }
        Thread.detachNewThread { [self] in
            if job.kind == .estimate { jobs.keep(estimateBytes(job), for: id) } else { jobs.keep(output(job), for: id) }
        }
    }

    /// The job's file: a vector tile package of the basemap over the extent up to its levels (the
    /// sample cuts to level 14 at most), or a geodatabase of the features that meet it.
    private func output(_ job: SampleExportJobs.Job) -> (name: String, data: Data) {
        let file: (name: String, data: Data)
        if job.kind == .replica {
            // The replica's record names the service, as createReplica writes it: the layers are drawn from the file.
            let replica = GeodatabaseReplica(id: "{\(UUID().uuidString)}", name: "mapbook_\(job.id)", serviceURL: baseURL + SampleFeatureServer.path,
                                             layers: job.layers.map { .init(id: $0, table: SampleAreaGeodatabase.tables[$0], serverGeneration: 1000) })
            let data = (try? SampleAreaGeodatabase.bytes(within: job.extent, features: content.featureServer, replica: replica, layers: job.layers)) ?? Data()
            file = ("replica.geodatabase", data)
        } else {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-export-\(UUID().uuidString).vtpk").path
            defer { unlink(path) }
            let writer = VectorTilePackageWriter(name: "Explore_Maine_Basemap", title: "Explore Maine Basemap", snippet: "",
                                                 extent: job.extent, style: SampleBasemap.style)
            try? writer.write(tiles: tiles(job), to: path)
            file = ("Explore_Maine_Basemap.vtpk", FileManager.default.contents(atPath: path) ?? Data())
        }
        return file
    }

    private func tiles(_ job: SampleExportJobs.Job) -> [TileKey: MVTTile] {
        content.basemap.packageTiles(for: job.extent, upTo: job.levels.upperBound).filter { job.levels.contains($0.key.z) }
    }

    /// What the export would weigh, as a tile server estimates it: the tiles' own bytes, and each
    /// compact cache bundle's index.
    private func estimateBytes(_ job: SampleExportJobs.Job) -> (tiles: Int, bytes: Int64) {
        let tiles = tiles(job)
        let bundles = Set(tiles.keys.map { "\($0.z)/\($0.x >> 7)/\($0.y >> 7)" }).count
        let bytes = tiles.values.reduce(Int64(0)) { $0 + Int64(Deflate.deflate($1.encoded()).count) }
        return (tiles.count, bytes + Int64(bundles) * Self.bundleOverhead + Self.packageOverhead)
    }

    /// A Compact Cache V2 bundle's header and index (64 + 128 × 128 × 8 bytes), and a package's
    /// style, metadata and zip directory.
    static let bundleOverhead: Int64 = 64 + 128 * 128 * 8
    static let packageOverhead: Int64 = 16_000

    // MARK: Reading the request

    /// The query, and for a POST the form too.
    static func parameters(_ request: LoopbackRequest) -> [String: String] {
        request.method == "POST" ? request.query.merging(SampleAuth.form(request.body)) { _, form in form } : request.query
    }

    /// An envelope as JSON (`{"xmin":…,"spatialReference":{"wkid":4326}}`) in degrees or Web Mercator.
    static func envelope(_ text: String) -> GeoExtent? {
        guard let json = try? JSONValue(parsing: Data(text.utf8)), let envelope = Envelope(json: json, default: .wgs84) else { return nil }
        return envelope.geographic
    }

    /// `0-14`, or `0,1,2`.
    static func levels(_ text: String) -> ClosedRange<Int>? {
        let numbers = text.split(whereSeparator: { $0 == "-" || $0 == "," }).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let low = numbers.min(), let high = numbers.max(), low >= 0, high <= 23 else { return nil }
        return low...high
    }
}

import ArcGISModel
import ArcGISPortal
import Foundation
import Geometry
import LibraryModel
import MapbookCore

/// Which of a web map's layers an on-demand area can take, and which it cannot, with why.
public struct OnDemandPlan: Sendable, Equatable {
    public struct Refusal: Sendable, Equatable {
        public var title: String
        public var reason: String
    }

    public var layers: [OnDemandLayer]
    public var refused: [Refusal]
    /// A service could not be asked (the network, a server error): asked again, it may answer.
    public var isComplete = true
}

/// What one layer of a new area will weigh.
public struct LayerEstimate: Sendable, Equatable {
    public var layer: OnDemandLayer
    /// Tiles exported (tile layers).
    public var tiles: Int?
    /// Features in the area (feature layers), when the service counted them.
    public var features: Int?
    public var bytes: Int64
    /// Where the figure comes from: "the server's estimate", "counted from the tile grid"…
    public var basis: String
}

/// An export under way: what was asked, and each layer's server job. Kept in the area's folder
/// (`export.json`) from the moment the first job is submitted, so a restarted mapbook resumes the
/// jobs by their ids instead of starting them again.
public struct PendingExport: Sendable, Equatable, Codable {
    public struct Job: Sendable, Equatable, Codable {
        public var layer: OnDemandLayer
        /// The package item id the layer's file is recorded under.
        public var packageID: ItemID
        public var job: ServiceJob?
        public var resultURL: String?
        public var resultSize: Int64?
    }

    public var areaID: ItemID
    public var spec: OnDemandSpec
    public var jobs: [Job]
    public var submittedAt: Date
}

/// How an export's jobs stand: what the list row and the CLI show while the server prepares.
public struct ExportProgress: Sendable, Equatable {
    public struct Job: Sendable, Equatable {
        public var title: String
        public var status: ServiceJobStatus
    }

    public var areaID: ItemID
    public var jobs: [Job]

    /// One line: the slowest job's state ("Preparing on the server 40 %"), or "Prepared".
    public var label: String {
        let unfinished = jobs.filter { !$0.status.isFinished }
        guard !unfinished.isEmpty else { return ServiceJobStatus.succeeded.label }
        if unfinished.allSatisfy({ $0.status == .waiting }) { return ServiceJobStatus.waiting.label }
        // The slowest job that says how far it is.
        let percents = unfinished.compactMap { job -> Int? in
            if case .running(let percent?) = job.status { return percent }
            return nil
        }
        return ServiceJobStatus.running(percent: percents.min()).label
    }
}

/// Makes a map area of the user's own (docs/on-demand.md): the web map's tile layers exported
/// (`exportTiles`) and its feature services replicated (`createReplica`) over an extent, each an
/// asynchronous server job, then the packages downloaded like a preplanned area's — kept in the same
/// library, opened offline the same way. Shared by `mapbook area new` and the browser.
public struct OnDemandExport: Sendable {
    public let library: OfflineLibrary
    public let client: PortalClient
    /// How long a job may stay unfinished before mapbook stops waiting (the job is kept: asking
    /// again resumes it).
    public var patience: Duration = .seconds(30 * 60)
    /// The first wait between polls; it grows by half each time, to `longestPoll`.
    public var firstPoll: Duration = .milliseconds(500)
    public var longestPoll: Duration = .seconds(5)

    public init(library: OfflineLibrary, client: PortalClient) { self.library = library; self.client = client }

    /// A vector tile's weight when the server gives no estimate, and a feature's in a geodatabase,
    /// with the file's own tables: measured on the sample's packages (docs/on-demand.md).
    static let averageVectorTileBytes: Int64 = 6_000
    static let averageRasterTileBytes: Int64 = 20_000
    static let bytesPerFeature: Int64 = 600
    static let emptyGeodatabaseBytes: Int64 = 84_000

    // MARK: Plan

    /// The web map's layers as an export takes them: its basemap's tile services that allow export,
    /// its feature services that allow `Sync` or `Extract` (one replica each, of the layers the map
    /// shows); the rest refused with one sentence each. Asks each service's description.
    public func plan(_ webMap: WebMap) async -> OnDemandPlan {
        var layers: [OnDemandLayer] = [], refused: [OnDemandPlan.Refusal] = [], isComplete = true
        for layer in webMap.basemap.layers where layer.visible {
            let title = TerminalText.sanitizedLine(layer.title ?? layer.layerType, maxLength: 80)
            let kind: OnDemandLayer.Kind
            switch layer.layerType {
            case "VectorTileLayer": kind = .vectorTiles
            case "ArcGISTiledMapServiceLayer", "ArcGISTiledImageServiceLayer": kind = .rasterTiles
            default:
                refused.append(.init(title: title, reason: "mapbook cannot export a \(TerminalText.sanitizedLine(layer.layerType, maxLength: 40)) layer"))
                continue
            }
            guard let service = Self.tileServiceURL(layer) else {
                refused.append(.init(title: title, reason: "it names no tile service"))
                continue
            }
            do {
                let description = try await client.serviceDescription(service)
                guard description["exportTilesAllowed"]?.bool == true else {
                    refused.append(.init(title: title, reason: "its service does not allow exporting tiles"))
                    continue
                }
                // Levels a tile grid can have; a count of tiles no service holds (or below one) is no cap it means.
                let deepest = kind == .rasterTiles ? description["tileInfo"]?["lods"]?.array.compactMap({ $0["level"]?.int(in: 0...30) }).max() : nil
                let cap = description["maxExportTilesCount"].map { $0.int(in: 1...(1 << 47)) } ?? 100_000
                layers.append(OnDemandLayer(title: title, kind: kind, serviceURL: service.absoluteString, maxTiles: cap, deepestLevel: deepest))
            } catch {
                refused.append(.init(title: title, reason: "its service could not be asked: \(error.userSentence)"))
                isComplete = false
            }
        }
        var services: [(url: URL, titles: [String], ids: [Int])] = []
        for layer in webMap.flatOperationalLayers where layer.visible {
            let title = TerminalText.sanitizedLine(layer.title ?? layer.layerType, maxLength: 80)
            guard case .featureService = layer.drawing else {
                if layer.featureCollection == nil, layer.layerType != "CSV" {
                    refused.append(.init(title: title, reason: "mapbook exports only feature services' layers"))
                }
                continue
            }
            guard let (service, id) = Self.featureService(of: layer) else {
                refused.append(.init(title: title, reason: "its address names no feature service layer"))
                continue
            }
            if let index = services.firstIndex(where: { $0.url == service }) {
                services[index].titles.append(title)
                services[index].ids.append(id)
            } else {
                services.append((service, [title], [id]))
            }
        }
        for service in services {
            let title = service.titles.joined(separator: ", ")
            do {
                let description = try await client.serviceDescription(service.url)
                let capabilities = (description["capabilities"]?.string ?? "").lowercased().split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                guard capabilities.contains("sync") || capabilities.contains("extract") else {
                    refused.append(.init(title: title, reason: "its service allows neither Sync nor Extract"))
                    continue
                }
                layers.append(OnDemandLayer(title: title, kind: .features, serviceURL: service.url.absoluteString,
                                            layerIDs: Array(Set(service.ids)).sorted()))
            } catch {
                refused.append(.init(title: title, reason: "its service could not be asked: \(error.userSentence)"))
                isComplete = false
            }
        }
        return OnDemandPlan(layers: layers, refused: refused, isComplete: isComplete)
    }

    /// A basemap layer's tile service: its `url`, or for a vector layer given only its style the
    /// address up to `VectorTileServer`.
    static func tileServiceURL(_ layer: WebMapLayer) -> URL? {
        for text in [layer.url, layer.styleURL].compactMap({ $0 }) {
            guard var url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { continue }
            while !url.path.isEmpty, url.path != "/", !["vectortileserver", "mapserver", "imageserver"].contains(url.lastPathComponent.lowercased()) {
                url.deleteLastPathComponent()
            }
            if url.path != "/", !url.path.isEmpty { return URL(string: url.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))) }
        }
        return nil
    }

    /// `…/FeatureServer/3` → (`…/FeatureServer`, 3).
    static func featureService(of layer: WebMapLayer) -> (URL, Int)? {
        guard let text = layer.url, let url = URL(string: text), let id = Int(url.lastPathComponent),
              url.deletingLastPathComponent().lastPathComponent.lowercased() == "featureserver" else { return nil }
        return (url.deletingLastPathComponent(), id)
    }

    // MARK: Estimate

    /// Each layer's weight for the spec: a tile layer's from `estimateExportTilesSize` where the
    /// service answers it, else its tiles counted on the grid times an average tile; a feature
    /// service's from its features counted in the extent.
    public func estimate(_ plan: OnDemandPlan, spec: OnDemandSpec) async -> [LayerEstimate] {
        var estimates: [LayerEstimate] = []
        for layer in plan.layers {
            switch layer.kind {
            case .vectorTiles, .rasterTiles:
                let levels = layer.levels(upTo: spec.maxLevel)
                if let answer = try? await client.estimateTileExport(layer, extent: spec.extent, levels: levels) {
                    estimates.append(LayerEstimate(layer: layer, tiles: answer.tiles, bytes: answer.bytes, basis: "the server's estimate"))
                } else {
                    let counted = TileGrid.tileCount(spec.extent, levels: levels)
                    let average = layer.kind == .vectorTiles ? Self.averageVectorTileBytes : Self.averageRasterTileBytes
                    estimates.append(LayerEstimate(layer: layer, tiles: counted, bytes: Int64(counted) * average,
                                                   basis: "counted from the tile grid"))
                }
            case .features:
                var count = 0, counted = true
                for id in layer.layerIDs {
                    guard let url = URL(string: layer.serviceURL + "/\(id)"),
                          let n = try? await client.countFeatures(at: url, within: spec.extent) else { counted = false; continue }
                    count += n
                }
                estimates.append(LayerEstimate(layer: layer, features: counted ? count : nil,
                                               bytes: Self.emptyGeodatabaseBytes + Int64(count) * Self.bytesPerFeature,
                                               basis: counted ? "its features counted" : "some layers could not be counted"))
            }
        }
        return estimates
    }

    /// The tile layers the spec asks more tiles of than their service exports at once: refused
    /// before any job starts, with the numbers and the deepest level that would fit.
    public static func tooManyTiles(_ plan: OnDemandPlan, spec: OnDemandSpec) -> LibraryError? {
        for layer in plan.layers where layer.kind != .features {
            let levels = layer.levels(upTo: spec.maxLevel)
            let count = TileGrid.tileCount(spec.extent, levels: levels)
            guard let cap = layer.maxTiles, count > cap else { continue }
            let fits = (0..<levels.upperBound).last { TileGrid.tileCount(spec.extent, levels: 0...$0) <= cap }
            let advice = fits.map { level in
                let named = DetailLevel.allCases.filter { $0.level <= level }.max { $0.level < $1.level }
                return named.map { " (\($0.title), level \($0.level), fits)" } ?? " (level \(level) fits)"
            } ?? ""
            return .cannotMake(title: spec.name, reason:
                "\(layer.title) would be \(count.formatted()) tiles at \(spec.detailLabel), and its service exports at most \(cap.formatted()) at once; choose a smaller area or less detail\(advice)")
        }
        return nil
    }

    // MARK: Jobs

    /// Names in use, folded: the web map's areas, those on this device and the exports under way.
    private func takenNames(among areas: [MapArea]) -> Set<String> {
        let kept = library.storedRecords().values.compactMap { $0.area?.item.title }
        return Set((areas.map(\.item.title) + kept + library.pendingExports().map(\.spec.name)).map { $0.lowercased() })
    }

    public func nameIsTaken(_ name: String, among areas: [MapArea]) -> Bool { takenNames(among: areas).contains(name.lowercased()) }

    /// The first of "Area 1", "Area 2"… not in use.
    public func defaultName(among areas: [MapArea]) -> String {
        let taken = takenNames(among: areas)
        return (1...).lazy.map { "Area \($0)" }.first { !taken.contains($0.lowercased()) }!
    }

    /// Starts an export: the area gets its id and folder, `export.json` is written, and each layer's
    /// job is submitted (and saved as soon as it has an id).
    public func start(_ spec: OnDemandSpec, plan: OnDemandPlan) async throws -> PendingExport {
        if let refused = Self.tooManyTiles(plan, spec: spec) { throw refused }
        guard !plan.layers.isEmpty else {
            throw LibraryError.cannotMake(title: spec.name, reason:
                "none of the web map's layers can be taken offline" + (plan.refused.first.map { " (\($0.title): \($0.reason))" } ?? ""))
        }
        let id = Self.newID()
        let export = PendingExport(areaID: id, spec: spec, jobs: plan.layers.map { PendingExport.Job(layer: $0, packageID: Self.newID()) },
                                   submittedAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try library.savePendingExport(export)
        return try await submitMissing(export)
    }

    /// Submits the jobs not yet submitted (the first run, or one stopped between submissions).
    private func submitMissing(_ export: PendingExport) async throws -> PendingExport {
        var export = export
        for index in export.jobs.indices where export.jobs[index].job == nil {
            let job = export.jobs[index]
            let levels = job.layer.levels(upTo: export.spec.maxLevel)
            export.jobs[index].job = job.layer.kind == .features
                ? try await client.submitReplica(job.layer, extent: export.spec.extent, name: Self.replicaName(export.spec.name))
                : try await client.submitTileExport(job.layer, extent: export.spec.extent, levels: levels)
            try library.savePendingExport(export)
        }
        return export
    }

    /// Watches every job until each has its package (saving their addresses as they come), then
    /// answers the area to download: a `MapArea` of the export's packages. `progress` hears each
    /// change. A job that fails, is cancelled or outlasts `patience` ends it with one sentence;
    /// the export stays, to be resumed or forgotten.
    public func prepare(_ export: PendingExport, progress: @Sendable (ExportProgress) -> Void = { _ in }) async throws -> MapArea {
        var export = try await submitMissing(export)
        let started = ContinuousClock.now
        var wait = firstPoll
        var last: ExportProgress?
        while true {
            var statuses: [ExportProgress.Job] = []
            for index in export.jobs.indices {
                let job = export.jobs[index]
                if job.resultURL != nil { statuses.append(.init(title: job.layer.title, status: .succeeded)); continue }
                guard let serviceJob = job.job else { continue }
                let report = try await client.jobStatus(serviceJob)
                statuses.append(.init(title: job.layer.title, status: report.status))
                switch report.status {
                case .succeeded:
                    export.jobs[index].resultURL = report.resultURL?.absoluteString
                    export.jobs[index].resultSize = report.resultSize
                    try library.savePendingExport(export)
                case .failed(let reason):
                    throw LibraryError.cannotMake(title: export.spec.name, reason: "\(job.layer.title) failed on the server: \(reason)")
                case .cancelled:
                    throw LibraryError.cannotMake(title: export.spec.name, reason: "\(job.layer.title) was cancelled on the server")
                case .waiting, .running: break
                }
            }
            let now = ExportProgress(areaID: export.areaID, jobs: statuses)
            if now != last { progress(now); last = now }
            if export.jobs.allSatisfy({ $0.resultURL != nil }) { return Self.area(of: export) }
            guard ContinuousClock.now - started < patience else {
                let minutes = max(1, Int(patience.components.seconds / 60))
                throw LibraryError.cannotMake(title: export.spec.name, reason:
                    "the server has not finished preparing it after \(minutes) minute\(minutes == 1 ? "" : "s"); ask again to keep waiting (the server's jobs are kept)")
            }
            try await Task.sleep(for: wait)
            wait = min(wait * 3 / 2, longestPoll)
        }
    }

    /// The area an export's finished jobs make, to download.
    static func area(of export: PendingExport) -> MapArea {
        MapArea.onDemand(id: export.areaID, spec: export.spec, packages: export.jobs.compactMap { job in
            guard let text = job.resultURL, let url = URL(string: text) else { return nil }
            return (job.packageID, job.layer, url, job.resultSize)
        }, exported: export.submittedAt)
    }

    /// Forgets an export: asks the servers to cancel what can be cancelled, then deletes its file
    /// (and the folder, when no download of the area is kept).
    public func forget(_ export: PendingExport) async {
        for job in export.jobs where job.resultURL == nil {
            if let serviceJob = job.job { await client.cancelJob(serviceJob) }
        }
        library.removePendingExport(export.areaID)
    }

    /// The export's file once its area is downloaded: nothing is pending any more.
    public func finished(_ export: PendingExport) { library.removePendingExport(export.areaID) }

    private static func newID() -> ItemID {
        ItemID(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())!
    }

    /// A replica's name: letters, digits and underscores, as services accept.
    static func replicaName(_ name: String) -> String {
        let kept = name.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "_" }
        return "mapbook_" + String(kept.prefix(60))
    }
}

extension OfflineLibrary {
    func exportPath(_ area: ItemID) -> String { areaDirectory(area) + "/export.json" }

    /// The exports under way in this library: an `export.json` whose area is not yet downloaded
    /// (or is being made again).
    public func pendingExports() -> [PendingExport] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/areas")) ?? []
        return names.compactMap(ItemID.init).compactMap(pendingExport).sorted { $0.submittedAt < $1.submittedAt }
    }

    /// The export under way for the area, if there is one.
    public func pendingExport(_ area: ItemID) -> PendingExport? {
        (try? AtomicFile.readJSON(PendingExport.self, from: exportPath(area))) ?? nil
    }

    func savePendingExport(_ export: PendingExport) throws(LibraryError) {
        try AtomicFile.makeDirectory(areaDirectory(export.areaID))
        try AtomicFile.writeJSON(export, to: exportPath(export.areaID))
    }

    func removePendingExport(_ area: ItemID) {
        unlink(exportPath(area))
        if storedRecord(area) == nil { try? FileManager.default.removeItem(atPath: areaDirectory(area)) }
    }
}

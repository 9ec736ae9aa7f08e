import ArcGISModel
import ArcGISPortal
import ArgumentParser
import Foundation
import Geometry
import LibraryModel
import MapbookCore
import OfflineLibrary

/// `mapbook area`: map areas of your own.
struct AreaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "area",
        abstract: "Make map areas of your own where no preplanned area was prepared.",
        subcommands: [AreaNewCommand.self, AreaCancelCommand.self])
}

/// `mapbook area new`: exports the web map's layers over an extent (server jobs), then downloads
/// the packages into the library like a preplanned area's (docs/on-demand.md).
struct AreaNewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Make a map area of your own: export tiles and features over an extent, then download them.",
        discussion: """
            The web map's basemap tile layers are exported with exportTiles and its feature services replicated with \
            createReplica, each a job on its server; then the packages are downloaded and verified like a preplanned \
            area's, kept in the same library and opened offline the same way. Layers that cannot be taken offline are \
            named with why. With --estimate-only, only the estimate is printed. Ctrl-C stops, keeping the server's \
            jobs; the same command again resumes them. With --json, each event is one JSON object per line.
            """)

    @OptionGroup var options: LibraryOptions
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The area: west,south,east,north in degrees.", valueName: "W,S,E,N"))
    var extent: String
    @Option(name: .long, help: ArgumentHelp("How close it can be looked at: \(DetailLevel.allCases.map(\.title).joined(separator: ", ")).",
                                            valueName: "NAME"))
    var scale: String?
    @Option(name: .customLong("max-level"), help: ArgumentHelp("The deepest tile level instead of a named scale (0–23).", valueName: "N"))
    var maxLevel: Int?
    @Option(name: .long, help: ArgumentHelp("The area's name, unique in the library (default: Area 1, Area 2…).", valueName: "NAME"))
    var name: String?
    @Flag(name: .customLong("estimate-only"), help: "Print the estimate and stop.") var estimateOnly = false
    @Flag(help: "Print JSON lines instead of text.") var json = false

    func validate() throws {
        guard (scale == nil) != (maxLevel == nil) else { throw ValidationError("Give --scale NAME or --max-level N (one of them).") }
        if let scale, DetailLevel(name: scale) == nil {
            throw ValidationError("--scale is one of \(DetailLevel.allCases.map(\.title).joined(separator: ", ")).")
        }
        if let maxLevel, !(0...23).contains(maxLevel) { throw ValidationError("--max-level is 0 to 23.") }
        guard Self.parseExtent(extent) != nil else {
            throw ValidationError("--extent is west,south,east,north in degrees, west below east and south below north.")
        }
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 120 {
            throw ValidationError("--name needs 1 to 120 characters.")
        }
    }

    /// The box as every command reads one, within the latitudes Web Mercator tiles reach.
    static func parseExtent(_ text: String) -> GeoExtent? {
        GeoExtent(parsing: text).flatMap { abs($0.ymin) <= 85.06 && abs($0.ymax) <= 85.06 ? $0 : nil }
    }

    func run() async throws {
        let interrupt = InterruptHandler()
        defer { interrupt.cancel() }
        let client = options.selection.client()
        let library = options.library
        let maker = OnDemandExport(library: library, client: client)
        let detail = scale.flatMap(DetailLevel.init(name:))
        let level = maxLevel ?? detail!.level
        let catalog: LibraryCatalog
        do {
            catalog = try await library.sync(from: client)
        } catch {
            throw Output.fail(error, json: json)
        }
        let wanted = name?.trimmingCharacters(in: .whitespaces)
        // The same name as an export under way, for the same area: resume its jobs by id.
        if let wanted, let pending = library.pendingExports().first(where: { $0.spec.name.lowercased() == wanted.lowercased() }) {
            guard pending.spec.extent == Self.parseExtent(extent), pending.spec.maxLevel == level else {
                throw Output.fail(LibraryError.cannotMake(title: wanted, reason:
                    "an export called that is under way for another extent or level; choose another --name"), json: json)
            }
            say("Resuming \(Output.cell(wanted)): its server jobs were started \(Format.timestamp(pending.submittedAt)).",
                json: ["event": .string("resumed"), "area": .string(pending.areaID.rawValue), "title": .text(wanted)])
            try await finish(pending, maker: maker, keptLayers: catalog.webMap.keptLayers, interrupt: interrupt)
            return
        }
        let title = wanted ?? maker.defaultName(among: catalog.areas)
        if maker.nameIsTaken(title, among: catalog.areas) {
            throw Output.fail(LibraryError.cannotMake(title: title, reason: "an area of the web map is already called that; choose another --name"), json: json)
        }
        let spec = OnDemandSpec(name: title, extent: Self.parseExtent(extent)!, maxLevel: level, detail: detail,
                                createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        let plan = await maker.plan(catalog.webMap)
        for refusal in plan.refused {
            say("\(Output.cell(refusal.title)): not taken offline — \(Output.cell(refusal.reason, width: 200)).",
                json: ["event": .string("refused"), "layer": .text(refusal.title), "reason": .text(refusal.reason)])
        }
        let estimates = await maker.estimate(plan, spec: spec)
        report(estimates, spec: spec)
        if let refused = OnDemandExport.tooManyTiles(plan, spec: spec) { throw Output.fail(refused, json: json) }
        if estimateOnly { return }
        let pending: PendingExport
        do {
            pending = try await maker.start(spec, plan: plan)
        } catch {
            throw Output.fail(error, json: json)
        }
        try await finish(pending, maker: maker, keptLayers: catalog.webMap.keptLayers, interrupt: interrupt)
    }

    private func report(_ estimates: [LayerEstimate], spec: OnDemandSpec) {
        for estimate in estimates {
            let what = estimate.tiles.map { "\($0.formatted()) tiles" } ?? estimate.features.map { "\($0.formatted()) features" } ?? "its features"
            say("\(Output.cell(estimate.layer.title)): \(what), about \(Format.bytes(estimate.bytes)) (\(estimate.basis)).",
                json: ["event": .string("estimate"), "layer": .text(estimate.layer.title), "kind": .string(estimate.layer.kind.rawValue),
                       "tiles": estimate.tiles.map { .number(Double($0)) } ?? .null,
                       "features": estimate.features.map { .number(Double($0)) } ?? .null,
                       "bytes": .number(Double(estimate.bytes)), "basis": .string(estimate.basis)])
        }
        let total = estimates.reduce(Int64(0)) { $0 + $1.bytes }
        say("\(Output.cell(spec.name)) at \(spec.detailLabel): about \(Format.bytes(total)) in all.",
            json: ["event": .string("estimateTotal"), "title": .text(spec.name), "maxLevel": .number(Double(spec.maxLevel)),
                   "detail": spec.detail.map { .string($0.rawValue) } ?? .null, "bytes": .number(Double(total))])
    }

    /// Waits for the server's jobs, then downloads the packages as `mapbook download` does.
    private func finish(_ pending: PendingExport, maker: OnDemandExport, keptLayers: [WebMapLayer], interrupt: InterruptHandler) async throws {
        let json = self.json
        let preparing = Task {
            try await maker.prepare(pending) { progress in
                for job in progress.jobs {
                    let line = "\(Output.cell(pending.spec.name)) · \(Output.cell(job.title)): \(job.status.label)."
                    if json {
                        var fields: [String: JSONValue] = ["event": .string("job"), "area": .string(pending.areaID.rawValue),
                                                           "layer": .text(job.title), "status": .string(job.status.label)]
                        if case .running(let percent?) = job.status { fields["percent"] = .number(Double(percent)) }
                        Output.jsonLine(fields)
                    } else {
                        Output.line(line)
                    }
                }
            }
        }
        interrupt.onInterrupt { preparing.cancel() }
        let area: MapArea
        do {
            area = try await preparing.value
        } catch {
            if let number = interrupt.receivedSignal {
                Output.standardError("mapbook: stopped; the server's jobs are kept: run the same command again to resume.")
                throw ExitCode(128 + number)
            }
            throw Output.fail(error, json: json)
        }
        try await DownloadRun(library: maker.library, client: maker.client, report: DownloadReport(json: json), interrupt: interrupt,
                              keptLayers: keptLayers).perform([area])
        maker.finished(pending)
    }

    private func say(_ text: String, json fields: [String: JSONValue]) {
        if json { Output.jsonLine(fields) } else { Output.line(text) }
    }
}

/// `mapbook area cancel`: stops making an area whose server jobs are under way.
struct AreaCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Stop making an area of your own: cancel its server jobs where the service can, and forget them.",
        discussion: "NAME is the area's name or id, as `mapbook library` lists it while it is preparing.")

    @OptionGroup var options: LibraryOptions
    @Argument(help: ArgumentHelp("The area being made.", valueName: "NAME")) var name: String
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() async throws {
        let library = options.library
        let pending = library.pendingExports()
        let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
        guard let export = pending.first(where: { $0.areaID.rawValue == wanted || $0.spec.name.lowercased() == wanted }) else {
            throw Output.fail(LibraryError.noSuchArea(name, choices: pending.map(\.spec.name)), json: json)
        }
        await OnDemandExport(library: library, client: options.selection.client()).forget(export)
        if json {
            Output.jsonLine(["event": .string("cancelled"), "area": .string(export.areaID.rawValue), "title": .text(export.spec.name)])
        } else {
            Output.line("\(Output.cell(export.spec.name)): its server jobs were cancelled where the service allows, and forgotten.")
        }
    }
}

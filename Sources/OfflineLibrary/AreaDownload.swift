import ArcGISPortal
import EventLoop
import Foundation
import HTTP
import MapbookCore
import ArcGISModel
import LibraryModel

/// Downloads one map area's packages into the library: each streams into a `.part` file with a
/// control file beside it, resumes from what is on disk, is verified, and only when every package
/// has passed are they moved into place and the area's record written.
///
/// The order of writes survives a crash at any point:
/// 1. the area lock is taken (one writer per area, across processes);
/// 2. `.part` is created, then its control file, and the control file again with the response's
///    validator as soon as the response headers arrive, so a resume never starts from zero;
/// 3. verified packages move to `packages/` under a name per version, beside the current ones;
/// 4. the record is written (the moment the area becomes downloaded, or updated), then what it no
///    longer names is deleted.
/// A package already whole in `packages/` or in `partial/` (a crash after 2 or 3) is re-verified
/// and adopted instead of fetched again. A record that cannot be written takes back the packages
/// it would have named to `partial/`, so nothing unrecorded stays in `packages/`.
struct AreaDownload: Sendable {
    let area: MapArea
    let library: OfflineLibrary
    let client: PortalClient
    let http: HTTPClient
    /// Wait for another process's download of the area to end instead of failing at once.
    var waitForLock = false
    /// The web map's operational layers kept over the area beside its packages: feature copies, map
    /// services' pictures (`WebMap.keptLayers`).
    var keptLayers: [WebMapLayer] = []
    /// How often the control file is saved while bytes arrive.
    var controlInterval: Duration = .seconds(2)

    /// Runs the download; `report` gets the area's bytes so far and its total when known (from the
    /// HTTP thread), `started` the offset the first package resumes from, `copying` how many
    /// feature layer copies are fetched once the packages are in. Throws `HTTPError` or
    /// `LibraryError`.
    func run(started: @Sendable (Int64) -> Void, report: @escaping @Sendable (Int64, Int64?) -> Void,
             copying: @escaping @Sendable (FeatureCopyCount) -> Void = { _ in }) async throws -> DownloadRecord {
        let title = area.item.title, id = area.item.id
        try checkDownloadable()
        let lock = try await AreaLock.acquire(areaDirectory: library.areaDirectory(id), title: title, wait: waitForLock)
        defer { withExtendedLifetime(lock) {} }
        library.removeLeftoverTemporaryFiles(id)

        let knownSizes = area.packages.allSatisfy { ($0.size ?? 0) > 0 }
        let total = knownSizes ? area.size : nil
        let meter = AreaByteCount()
        var arrived: [Arrival] = []
        var needed: [AreaPackage] = []
        for package in area.packages {
            if let adopted = adopt(package) {
                arrived.append(adopted)
                meter.finishPackage(size: adopted.size)
            } else {
                needed.append(package)
            }
        }
        try checkSpace(for: needed)

        for (index, package) in needed.enumerated() {
            arrived.append(try await fetch(package, first: index == 0, started: started, meter: meter) { report($0, total) })
            meter.finishPackage(size: arrived.last!.size)
        }
        if needed.isEmpty { started(0) }
        // The feature copies are part of the area: fetched whole and put in place before the record
        // is written, so a disk that fills up while writing them fails the download (to be tried
        // again, the verified packages adopted) instead of leaving an area "downloaded" without them.
        var copies = 0
        // Layers the area's own geodatabases hold are drawn from them: no copy is fetched.
        let geodatabases = AreaGeodatabases(arrived.filter { $0.package.kind == .sqliteGeodatabase }.map {
            AreaGeodatabases.Package(title: $0.package.item.title, path: $0.path, keywords: $0.package.item.typeKeywords)
        })
        if !keptLayers.isEmpty, let extent = area.extent {
            let copied = keptLayers.filter { !geodatabases.covers($0) }
            let total = copied.count
            if total > 0 { copying(FeatureCopyCount(done: 0, total: total)) }
            // Saved even when empty: copies an earlier download made of these layers are replaced.
            let files = await FeatureCopies.fetch(copied, within: extent, client: client) { copying(FeatureCopyCount(done: $0, total: total)) }
            try Task.checkCancellation()
            try library.saveFeatureCopies(files, for: id)
            copies = files.count
        }
        return try commit(arrived, featureCopies: copies)
    }

    /// A package that is on disk, whole and checked, with where it is now.
    private struct Arrival {
        var package: AreaPackage
        var path: String
        var verifiedBy: String
        var size: Int64
        /// The mirror it came from; nil for the portal (or a copy already on disk).
        var mirror: String?
        var mirrorProblem: String?
    }

    private func checkDownloadable() throws {
        if let reason = NotDownloadableReason(area) { throw LibraryError.notDownloadable(title: area.item.title, reason: reason) }
    }

    /// Refuses before the first byte when the packages cannot fit on the library's disk (a package
    /// the portal lists as larger than any disk included), counting the bytes already kept.
    private func checkSpace(for packages: [AreaPackage]) throws {
        guard let free = DiskSpace.available(at: library.areaDirectory(area.item.id)) else { return }
        let kept = packages.map { AtomicFile.size(of: library.partPath(area.item.id, $0.item.id)) ?? 0 }.reduce(0, +)
        let (total, overflow) = packages.reduce((Int64(0), false)) { sum, package in
            let added = sum.0.addingReportingOverflow(max(package.size ?? 0, 0))
            return (added.partialValue, sum.1 || added.overflow)
        }
        let needed = overflow ? Int64.max : total - kept
        if needed > free { throw LibraryError.notEnoughSpace(title: area.item.title, needed: needed, free: free) }
    }

    /// The package, if a whole and verified copy of this version is already on disk: in `packages/`
    /// (moved there before a crash or a record that could not be written) or as a complete `.part`
    /// whose control file names this version.
    private func adopt(_ package: AreaPackage) -> Arrival? {
        let id = area.item.id, name = OfflineLibrary.fileName(for: package)
        let placed = library.packagesDirectory(id) + "/" + name, part = library.partPath(id, package.item.id)
        var candidates = [placed]
        if transfer(of: package).control != nil { candidates.append(part) }
        for path in candidates {
            guard let size = AtomicFile.size(of: path), let expected = package.size, expected > 0, size == expected,
                  let verifiedBy = try? PackageVerifier.verify(path: path, name: package.item.title, expectedSize: expected,
                                                               fileName: name) else { continue }
            return Arrival(package: package, path: path, verifiedBy: verifiedBy, size: size)
        }
        return nil
    }

    /// The package's bytes from the fleet mirror when it holds this version, else from the portal
    /// (`Mirror.fetch`). An area made on this device always comes from its jobs' results.
    private func fetch(_ package: AreaPackage, first: Bool, started: @Sendable (Int64) -> Void, meter: AreaByteCount,
                       report: @escaping @Sendable (Int64) -> Void) async throws -> Arrival {
        let fetched = try await Mirror.fetch(package.item.id, title: package.item.title, modified: package.item.modified, size: package.size,
                                             mirror: area.onDemand == nil ? library.mirror : nil, portal: portalRequest(for: package)) {
            try await fetch(package, from: $0, checkedAgainst: $1, first: first, started: started, meter: meter, report: report)
        }
        var arrival = fetched.value
        arrival.mirror = fetched.mirror
        arrival.mirrorProblem = fetched.mirrorProblem
        return arrival
    }

    /// One try from one source; a copy from the mirror is checked as `Mirror.check` says.
    private func fetch(_ package: AreaPackage, from request: HTTPRequest, checkedAgainst check: Mirror.CopyCheck?, first: Bool,
                       started: @Sendable (Int64) -> Void, meter: AreaByteCount, report: @escaping @Sendable (Int64) -> Void) async throws -> Arrival {
        var transfer = transfer(of: package, request: request)
        transfer.hashing = check != nil
        let (result, checksums, streamed) = try await transfer.run(meter: meter, started: { if first { started($0) } }, report: report)
        do {
            let vouched = try await Mirror.check(transfer.part, title: package.item.title, against: check, streamed: streamed)
            let verifiedBy = try PackageVerifier.verify(path: transfer.part, name: package.item.title, expectedSize: package.size,
                                                        fileName: OfflineLibrary.fileName(for: package), streamed: checksums)
            return Arrival(package: package, path: transfer.part, verifiedBy: [vouched, verifiedBy].compactMap { $0 }.joined(separator: ", "),
                           size: result.size)
        } catch {
            transfer.discard()
            throw error
        }
    }

    /// An area made on this device fetches each package from its export job's result; a portal's
    /// area always from the item's data, whatever its items say.
    private func portalRequest(for package: AreaPackage) -> HTTPRequest {
        let result = area.onDemand != nil ? package.resultURL : nil
        return result.map(client.exportResultRequest) ?? client.packageRequest(package.item.id)
    }

    /// The transfer into the package's `.part` file, from wherever `request` asks (adoption only
    /// reads its control file).
    private func transfer(of package: AreaPackage, request: HTTPRequest? = nil) -> ResumableTransfer {
        let id = area.item.id
        return ResumableTransfer(http: http, request: request ?? portalRequest(for: package), part: library.partPath(id, package.item.id),
                                 controlPath: library.controlPath(id, package.item.id), itemID: package.item.id,
                                 modified: package.item.modified.map(DownloadRecord.millis), expectedSize: package.size,
                                 controlInterval: controlInterval)
    }

    /// Moves the packages in and writes the record; see the type's comment for the order.
    private func commit(_ arrived: [Arrival], featureCopies: Int) throws -> DownloadRecord {
        let id = area.item.id
        try AtomicFile.makeDirectory(library.packagesDirectory(id))
        var moved: [(from: String, to: String)] = []
        var packages: [DownloadRecord.Package] = []
        do {
            for file in arrived {
                let name = OfflineLibrary.fileName(for: file.package)
                let target = library.packagesDirectory(id) + "/" + name
                if file.path != target {
                    try AtomicFile.move(file.path, to: target)
                    moved.append((file.path, target))
                }
                let tiles = PackageVerifier.checkTiles(path: target, fileName: name)
                packages.append(.init(id: file.package.item.id, title: file.package.item.title, type: file.package.item.type,
                                      fileName: name, size: file.size,
                                      modified: file.package.item.modified.map(DownloadRecord.millis), verifiedBy: file.verifiedBy,
                                      drawProblem: tiles?.drawProblem, damagedTiles: tiles.map(\.damaged).flatMap { $0 > 0 ? $0 : nil },
                                      damagedLevels: tiles.flatMap { $0.damagedLevels.isEmpty ? nil : $0.damagedLevels },
                                      layers: file.package.kind == .sqliteGeodatabase ? AreaGeodatabases.heldLayers(path: target, title: file.package.item.title) : nil,
                                      mirror: file.mirror, mirrorProblem: file.mirrorProblem))
            }
            let record = DownloadRecord(areaID: id, areaItem: area.item.arcGISJSON, packageItems: area.packages.map(\.item.arcGISJSON),
                                        packages: packages, featureCopies: featureCopies > 0 ? featureCopies : nil,
                                        // Whole seconds: the record reads back equal to what was written.
                                        downloadedAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
            try AtomicFile.writeJSON(record, to: library.manifestPath(id))
            library.discardStaleFiles(of: record)
            return record
        } catch {
            // Renames need no space: the verified bytes go back to where the next try adopts them.
            for (from, to) in moved.reversed() { rename(to, from) }
            throw error
        }
    }
}

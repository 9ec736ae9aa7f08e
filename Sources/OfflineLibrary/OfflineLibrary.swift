import ArcGISPortal
import Foundation
import MapbookCore
import ArcGISModel
import UserFiles
import LibraryModel

/// The offline library of one web map on one portal, on disk:
///
///     <root>/portals/<portal>/tile-cache/<service>/{z}/{x}/{y}.pbf   (online basemap tiles, bounded)
///     <root>/portals/<portal>/webmaps/<web map id>/
///         item.json  data.json  areas.json  thumbnail
///         areas/<area id>/thumbnail
///                        manifest.json               (present, with its files, = downloaded and verified)
///                        packages/<package id>-<modified>.vtpk  (finished packages, one name per version)
///                        partial/<package id>.part   (a download under way, and its .json control file)
///                        .lock                       (held by the one process writing the area)
///
/// Metadata is written atomically. Nothing here holds state in memory: two mapbook processes see
/// the same library, and the area lock keeps them from writing one area at once.
public struct OfflineLibrary: Sendable {
    public let root: String
    public let portalKey: String
    public let webMapID: ItemID
    /// The fleet mirror packages come from when it holds them, and the catalogue when the portal
    /// cannot be reached; nil for none.
    public let mirror: Mirror?

    public init(root: String, portal: URL, webMap: ItemID, mirror: Mirror? = nil) {
        self.init(root: root, portalKey: LibraryLocation.portalKey(for: portal), webMap: webMap, mirror: mirror)
    }

    public init(root: String, portalKey: String, webMap: ItemID, mirror: Mirror? = nil) {
        self.root = root; self.portalKey = portalKey; self.webMapID = webMap; self.mirror = mirror
    }

    public var directory: String { "\(root)/portals/\(portalKey)/webmaps/\(webMapID.rawValue)" }

    /// Online basemap tiles seen before (a bounded cache, not part of any download).
    public var tileCacheDirectory: String { "\(root)/portals/\(portalKey)/tile-cache" }

    public func areaDirectory(_ area: ItemID) -> String { "\(directory)/areas/\(area.rawValue)" }
    func manifestPath(_ area: ItemID) -> String { areaDirectory(area) + "/manifest.json" }
    public func packagesDirectory(_ area: ItemID) -> String { areaDirectory(area) + "/packages" }
    func partialDirectory(_ area: ItemID) -> String { areaDirectory(area) + "/partial" }
    func partPath(_ area: ItemID, _ package: ItemID) -> String { partialDirectory(area) + "/\(package.rawValue).part" }
    func controlPath(_ area: ItemID, _ package: ItemID) -> String { partialDirectory(area) + "/\(package.rawValue).json" }

    /// A package's file name: its id and version (`modified`), with the extension its type implies
    /// (never a name from the network). A new version gets a new name, so an update is written beside
    /// the files the current record names and the record switches to it in one step.
    static func fileName(for package: AreaPackage) -> String {
        var ext: String
        switch package.kind {
        case .vectorTilePackage: ext = "vtpk"
        case .tilePackage: ext = package.item.typeKeywords.contains("tpkx") ? "tpkx" : "tpk"
        case .sqliteGeodatabase: ext = "geodatabase"
        case .mobileMapPackage: ext = "mmpk"
        case .other: ext = "bin"
        }
        // The item's own file name says best what it is (a Tile Package item may hold a .tpkx).
        if let name = package.item.name,
           case let own = (name as NSString).pathExtension.lowercased(), ["vtpk", "tpk", "tpkx", "geodatabase", "mmpk"].contains(own) {
            ext = own
        }
        return "\(package.item.id.rawValue)-\(package.item.modified.map(DownloadRecord.millis) ?? 0).\(ext)"
    }

    /// The web maps of a portal kept in the library under `root` (their item saved), each with how
    /// many of its areas are downloaded: what the Maps card opens with no network.
    public static func keptWebMaps(root: String, portalKey: String) -> [KeptWebMap] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/portals/\(portalKey)/webmaps")) ?? []
        return names.sorted().compactMap { name -> KeptWebMap? in
            guard let id = ItemID(name) else { return nil }
            let library = OfflineLibrary(root: root, portalKey: portalKey, webMap: id)
            guard let item = library.keptWebMapItem() else { return nil }
            return KeptWebMap(item: item, downloadedAreas: library.downloadRecords().count)
        }
    }

    /// The web map's item as this library kept it, read with no network; nil when none is kept.
    public func keptWebMapItem() -> PortalItem? {
        guard let json = try? AtomicFile.readJSON(JSONValue.self, from: directory + "/item.json") else { return nil }
        return PortalItem(arcGISJSON: json)
    }

    /// Recent web maps as the Maps card and `mapbook maps --recent` list them, with no network: those
    /// opened on this portal, newest first, then the others with areas downloaded here.
    public static func recentWebMaps(_ recent: [RecentWebMap], root: String, portalKey: String) -> [LocalWebMap] {
        let kept = keptWebMaps(root: root, portalKey: portalKey)
        var found = recent.compactMap { map -> LocalWebMap? in
            guard let id = ItemID(map.id), URL(string: map.portal).map({ LibraryLocation.portalKey(for: $0) == portalKey }) == true else { return nil }
            return LocalWebMap(id: id, title: map.title, opened: map.opened, kept: kept.first { $0.item.id == id })
        }
        for map in kept where map.downloadedAreas > 0 && !found.contains(where: { $0.id == map.item.id }) {
            found.append(LocalWebMap(id: map.item.id, title: map.item.title, opened: nil, kept: map))
        }
        return found
    }

    // MARK: Catalog

    /// Keeps what the portal said about the web map and its areas, for browsing offline.
    public func saveCatalog(_ catalog: LibraryCatalog) throws(LibraryError) {
        try AtomicFile.writeJSON(catalog.webMapItem.arcGISJSON, to: directory + "/item.json")
        try AtomicFile.writeJSON(catalog.webMapData, to: directory + "/data.json")
        let stored = StoredAreas(syncedAt: catalog.syncedAt, areas: catalog.areas.map {
            StoredAreas.Area(item: $0.item.arcGISJSON, packages: $0.packages.map(\.item.arcGISJSON), unavailable: $0.unavailableReason)
        })
        try AtomicFile.writeJSON(stored, to: directory + "/areas.json")
    }

    /// The stored catalog, with the downloaded areas in `records` that it does not list added at the
    /// end; nil when the web map was never saved.
    public func loadCatalog(records: [ItemID: DownloadRecord]) throws(LibraryError) -> LibraryCatalog? {
        guard let itemJSON = try AtomicFile.readJSON(JSONValue.self, from: directory + "/item.json") else { return nil }
        guard let item = PortalItem(arcGISJSON: itemJSON) else {
            throw .corrupt(path: directory + "/item.json", detail: "no item id")
        }
        let data = try AtomicFile.readJSON(JSONValue.self, from: directory + "/data.json") ?? .object([:])
        let stored = try AtomicFile.readJSON(StoredAreas.self, from: directory + "/areas.json")
        let areas = stored?.areas.compactMap { area -> MapArea? in
            guard let item = PortalItem(arcGISJSON: area.item) else { return nil }
            return MapArea(areaItem: item, packageItems: area.packages.compactMap(PortalItem.init(arcGISJSON:)),
                           unavailableReason: area.unavailable)
        } ?? []
        return LibraryCatalog(webMapItem: item, webMapData: data, areas: LibraryCatalog.adding(records, to: areas), syncedAt: stored?.syncedAt)
    }

    /// The basemap chosen for this web map (`B`, `mapbook basemaps --use`), kept as the web map
    /// spec's `baseMap`; nil when none was chosen or the file cannot be read.
    public func chosenBasemap() -> Basemap? {
        guard let json = try? AtomicFile.readJSON(JSONValue.self, from: directory + "/basemap.json"), json.object != nil else { return nil }
        return Basemap(arcGISJSON: json)
    }

    /// Keeps the choice; nil forgets it (back to the web map's own basemap).
    public func saveChosenBasemap(_ basemap: Basemap?) throws(LibraryError) {
        guard let basemap else {
            unlink(directory + "/basemap.json")
            return
        }
        try AtomicFile.writeJSON(basemap.arcGISJSON, to: directory + "/basemap.json")
    }

    public func saveThumbnail(_ data: Data, for item: ItemID) throws(LibraryError) {
        try AtomicFile.write(data, to: thumbnailPath(item))
    }

    public func thumbnail(for item: ItemID) -> Data? { FileManager.default.contents(atPath: thumbnailPath(item)) }

    /// When the item's thumbnail was kept.
    func thumbnailDate(for item: ItemID) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: thumbnailPath(item)))?[.modificationDate] as? Date
    }

    private func thumbnailPath(_ item: ItemID) -> String {
        item == webMapID ? directory + "/thumbnail" : areaDirectory(item) + "/thumbnail"
    }

    // MARK: Downloads

    /// The area's record if it is downloaded: recorded, and every file it names present with its
    /// recorded size (a cheap check; `verify` reads the checksums). nil otherwise.
    public func downloadRecord(_ area: ItemID) -> DownloadRecord? {
        storedRecord(area).flatMap { isIntact($0) ? $0 : nil }
    }

    /// The area's record as written, whether or not its files are still whole; nil if there is none
    /// (or it cannot be read).
    public func storedRecord(_ area: ItemID) -> DownloadRecord? {
        (try? AtomicFile.readJSON(DownloadRecord.self, from: manifestPath(area))) ?? nil
    }

    /// Every downloaded area whose files are all there, by id.
    public func downloadRecords() -> [ItemID: DownloadRecord] {
        storedRecords().filter { isIntact($0.value) }
    }

    /// Every area with a record, intact or not, by id.
    public func storedRecords() -> [ItemID: DownloadRecord] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/areas")) ?? []
        var records: [ItemID: DownloadRecord] = [:]
        for name in names {
            guard let id = ItemID(name), let record = storedRecord(id) else { continue }
            records[id] = record
        }
        return records
    }

    /// Every file the record names is present with the size recorded, and its feature copies are.
    public func isIntact(_ record: DownloadRecord) -> Bool {
        !record.packages.isEmpty && record.packages.allSatisfy { AtomicFile.size(of: packagePath(record.areaID, $0)) == $0.size }
            && missingFeatureCopies(record) == 0
    }

    /// How many of the feature copies the record counts are not on disk.
    func missingFeatureCopies(_ record: DownloadRecord) -> Int {
        guard let expected = record.featureCopies, expected > 0 else { return 0 }
        let present = (0..<expected).filter { FileManager.default.fileExists(atPath: featuresDirectory(record.areaID) + String(format: "/%02d.json", $0)) }
        return expected - present.count
    }

    /// Where a downloaded package's file is.
    public func packagePath(_ area: ItemID, _ package: DownloadRecord.Package) -> String {
        packagesDirectory(area) + "/" + package.fileName
    }

    /// Where the packages a map view can draw are, best first (see `DownloadRecord.mapPackages`).
    public func mapPackagePaths(_ record: DownloadRecord) -> [String] {
        record.mapPackages.map { packagePath(record.areaID, $0) }
    }

    /// Areas with a download under way or interrupted (a `.part` file), by id, with bytes on disk.
    public func partialDownloads() -> [ItemID: Int64] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/areas")) ?? []
        var partial: [ItemID: Int64] = [:]
        for id in names.compactMap(ItemID.init) { partial[id] = partialDownloadSize(id) }
        return partial
    }

    /// Bytes of the area's `.part` files; nil when it has none.
    public func partialDownloadSize(_ area: ItemID) -> Int64? {
        let parts = ((try? FileManager.default.contentsOfDirectory(atPath: partialDirectory(area))) ?? [])
            .filter { $0.hasSuffix(".part") }
        let bytes = parts.compactMap { AtomicFile.size(of: partialDirectory(area) + "/" + $0) }.reduce(0, +)
        return bytes > 0 ? bytes : nil
    }

    /// Deletes the area's packages, its record and any partial download, record first: an area is
    /// never shown downloaded with its files half gone. Its catalog entry and thumbnail stay. Refuses
    /// (`LibraryError.busy`) while another process writes the area.
    public func removeDownload(_ area: ItemID, title: String) throws(LibraryError) {
        let lock: AreaLock
        switch try AreaLock.tryAcquire(areaDirectory: areaDirectory(area)) {
        case .acquired(let held): lock = held
        case .busy(let pid): throw .busy(title: title, pid: pid)
        }
        defer { withExtendedLifetime(lock) {} }
        if unlink(manifestPath(area)) != 0, errno != ENOENT { throw .write(path: manifestPath(area), errno: errno) }
        AtomicFile.syncDirectory(areaDirectory(area))
        for folder in [packagesDirectory(area), partialDirectory(area), featuresDirectory(area)] {
            do {
                if FileManager.default.fileExists(atPath: folder) { try FileManager.default.removeItem(atPath: folder) }
            } catch {
                throw .write(path: folder, errno: EIO)
            }
        }
    }

    /// After an area's record is written: files of packages it no longer has, and what is left of
    /// its partial downloads, go.
    func discardStaleFiles(of record: DownloadRecord) {
        let keep = Set(record.packages.map(\.fileName))
        let present = (try? FileManager.default.contentsOfDirectory(atPath: packagesDirectory(record.areaID))) ?? []
        for name in present where !keep.contains(name) { unlink(packagesDirectory(record.areaID) + "/" + name) }
        try? FileManager.default.removeItem(atPath: partialDirectory(record.areaID))
    }

    /// Deletes an area's partial downloads (a cancelled download), unless another process is
    /// writing the area. It waits for the lock as long as a remove does: a lock let go a moment ago
    /// can still be held by a process being started (between fork and exec the child shares the
    /// open lock file), which left a cancelled download's bytes behind now and then.
    public func removePartialDownload(_ area: ItemID) {
        guard case .acquired(let lock)? = try? AreaLock.tryAcquire(areaDirectory: areaDirectory(area)) else { return }
        withExtendedLifetime(lock) { try? FileManager.default.removeItem(atPath: partialDirectory(area)) }
    }

    /// Temporary files of metadata writes that a killed process left behind in the area's folders.
    /// Called by the area's lock holder only.
    func removeLeftoverTemporaryFiles(_ area: ItemID) {
        for folder in [areaDirectory(area), partialDirectory(area)] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.contains(".tmp-") {
                unlink(folder + "/" + name)
            }
        }
        // Feature copies being written when the disk filled or the process died: the new ones are
        // dropped; old ones swapped out but not yet deleted go back if nothing took their place.
        let features = featuresDirectory(area)
        try? FileManager.default.removeItem(atPath: features + ".new")
        if !FileManager.default.fileExists(atPath: features), rename(features + ".old", features) == 0 { return }
        try? FileManager.default.removeItem(atPath: features + ".old")
    }

    /// Every tile of the area's tile packages read again now (a package an older mapbook could not
    /// read may be readable now): the damaged ones counted, and why its map cannot be drawn when
    /// none of its tile packages can be.
    public func checkTiles(_ record: DownloadRecord) -> TileCheck {
        var checked = record
        var total = TileCheck()
        for index in checked.packages.indices {
            let package = checked.packages[index]
            guard let check = PackageVerifier.checkTiles(path: packagePath(record.areaID, package), fileName: package.fileName,
                                                         whole: true) else { continue }
            checked.packages[index].drawProblem = check.drawProblem
            if check.drawProblem == nil {
                total.checked += check.checked
                total.damaged += check.damaged
                total.damagedLevels = Array(Set(total.damagedLevels + check.damagedLevels)).sorted()
            }
        }
        total.drawProblem = checked.drawProblem
        return total
    }

    /// Re-checks every file of a downloaded area: present, the recorded size, and its checksums;
    /// and that its feature copies are in place.
    public func verify(_ record: DownloadRecord) -> [LibraryError] {
        let missing = missingFeatureCopies(record)
        let copies: [LibraryError] = missing > 0 ? [.featureCopiesMissing(count: missing, of: record.featureCopies ?? missing)] : []
        return copies + record.packages.compactMap { package -> LibraryError? in
            do throws(LibraryError) {
                try PackageVerifier.verify(path: packagePath(record.areaID, package), name: package.title,
                                           expectedSize: package.size, fileName: package.fileName)
                return nil
            } catch {
                return error.asStored
            }
        }
    }
}

/// A web map whose item the library keeps, and how many of its areas are on this device.
public struct KeptWebMap: Sendable, Equatable {
    public var item: PortalItem
    public var downloadedAreas: Int
}

/// A web map known on this device: opened lately (when), and what the library keeps of it.
public struct LocalWebMap: Sendable, Equatable {
    public var id: ItemID
    public var title: String
    public var opened: Date?
    public var kept: KeptWebMap?
}

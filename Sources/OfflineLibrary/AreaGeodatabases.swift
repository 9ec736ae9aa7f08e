import ArcGISModel
import Foundation
import Geodatabase
import LibraryModel
import MapbookCore

/// A preplanned area's own feature data: its SQLite Geodatabase packages, each opened once, and
/// which of the web map's layers each stands for (`Geodatabase.layer(standingFor:)`: the replica's
/// service URL, else the package item's `ReferenceURL#` keyword, and the layer id). Those layers
/// are drawn from the files — the owner's features, as packaged — and never copied from the service.
public struct AreaGeodatabases {
    private struct File {
        let gdb: Geodatabase
        /// The service the package item names in its keywords.
        let reference: String?
    }

    /// One geodatabase package to open: where it is and what its item says.
    public struct Package {
        public var title: String
        public var path: String
        public var keywords: [String]

        public init(title: String, path: String, keywords: [String]) { self.title = title; self.path = path; self.keywords = keywords }
    }

    private var files: [File] = []
    /// One sentence per file that could not be opened.
    public private(set) var problems: [String] = []

    public init(_ packages: [Package]) {
        for package in packages {
            let title = TerminalText.sanitizedLine(package.title, maxLength: 80)
            do {
                let gdb = try Geodatabase(path: package.path, name: title)
                files.append(File(gdb: gdb, reference: FeatureServiceURL.reference(inKeywords: package.keywords)))
            } catch {
                problems.append("The area's features \(title) could not be read: \(error.userSentence)")
            }
        }
    }

    public var isEmpty: Bool { files.isEmpty }

    /// The replicas the files record (a preplanned or on-demand area's): what a sync asks the server about.
    public var replicas: [GeodatabaseReplica] { files.compactMap(\.gdb.replica) }

    /// The table a web map layer is drawn from, when one of the files stands for it.
    public func table(for layer: WebMapLayer) -> (gdb: Geodatabase, layer: GeodatabaseLayer)? {
        layer.url.flatMap(table(forURL:))
    }

    /// The table standing for a feature service layer URL.
    public func table(forURL url: String) -> (gdb: Geodatabase, layer: GeodatabaseLayer)? {
        for file in files {
            if let table = file.gdb.layer(standingFor: url, reference: file.reference) { return (file.gdb, table) }
        }
        return nil
    }

    /// Whether a file stands for the layer (its features are not to be copied from the service).
    public func covers(_ layer: WebMapLayer) -> Bool { table(for: layer) != nil }

    /// Each file's tables no layer of `layers` names (a sample's or a Pro-made file's, or layers the
    /// web map dropped): drawn too, with their own renderer.
    public func unnamed(by layers: [WebMapLayer]) -> [(gdb: Geodatabase, tables: [GeodatabaseLayer])] {
        let named = layers.compactMap { table(for: $0) }
        return files.map { file in
            (file.gdb, file.gdb.layers.filter { table in !named.contains { $0.gdb === file.gdb && $0.layer.table == table.table } })
        }
    }

    /// Each table's name and live feature count, for the record: nil when the file cannot be
    /// opened, a table left out when it cannot be counted (never a count of 0 for one that failed).
    static func heldLayers(path: String, title: String) -> [DownloadRecord.HeldLayer]? {
        guard let gdb = try? Geodatabase(path: path, name: title) else { return nil }
        return gdb.layers.compactMap { table in
            (try? gdb.count(of: table)).map { DownloadRecord.HeldLayer(title: TerminalText.sanitizedLine(table.info.name, maxLength: 80), features: $0) }
        }
    }
}

extension OfflineLibrary {
    /// The downloaded area's geodatabases, opened.
    public func geodatabases(_ area: ItemID) -> AreaGeodatabases {
        guard let record = downloadRecord(area) else { return AreaGeodatabases([]) }
        let items = record.packageItems.compactMap(PortalItem.init(arcGISJSON:))
        return AreaGeodatabases(record.geodatabasePackages.map { package in
            AreaGeodatabases.Package(title: package.title, path: packagePath(area, package),
                                     keywords: items.first { $0.id == package.id }?.typeKeywords ?? [])
        })
    }
}

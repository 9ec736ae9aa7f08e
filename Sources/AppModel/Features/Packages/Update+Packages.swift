import Foundation
import ArcGISModel
import LibraryModel
import MapbookCore

/// A row of the Maps card's Packages tab: a mobile map package on this device (imported, copied,
/// or downloaded from the portal), or one of the portal's "Mobile Map Package" items, or both.
public struct PackageListing: Equatable, Sendable {
    /// The file on this device, when it is here.
    public var path: String?
    /// The portal item, when it is one (nil for a package imported or copied here).
    public var item: ItemID?
    public var size: Int64?
    /// How many maps it holds, when it is here.
    public var maps: Int?
    /// The portal's item changed since the copy here was downloaded.
    public var updateAvailable = false
    /// A download under way.
    public var progress: DownloadProgress?
    /// Why the copy here cannot be read, or why the last download failed.
    public var problem: String?

    public init(path: String? = nil, item: ItemID? = nil, size: Int64? = nil, maps: Int? = nil, updateAvailable: Bool = false,
                progress: DownloadProgress? = nil, problem: String? = nil) {
        self.path = path; self.item = item; self.size = size; self.maps = maps; self.updateAvailable = updateAvailable
        self.progress = progress; self.problem = problem
    }

    /// A package only on this device has no item id: its row is known by one made from its file name.
    public static func rowID(fileName: String) -> ItemID {
        func fnv(_ seed: UInt64) -> UInt64 {
            fileName.utf8.reduce(seed) { ($0 ^ UInt64($1)) &* 0x100000001b3 }
        }
        let hex = [fnv(0xcbf29ce484222325), fnv(0x84222325cbf29ce4)].map { String($0, radix: 16) }.map { String(repeating: "0", count: 16 - $0.count) + $0 }
        return ItemID(hex.joined())!
    }

    /// What the row says after the title, in its places (see `MapListing.factColumns`).
    func factColumns(owner: String?, created: Date?) -> [String?] {
        if let progress {
            let share = progress.fraction.map { " " + Format.percent($0) } ?? ""
            return ["Downloading\(share)", Format.bytes(progress.bytes) + (progress.total.map { " of " + Format.bytes($0) } ?? ""), nil, nil, nil]
        }
        if let problem { return [path == nil ? "Download failed: \(problem)" : "Cannot be read: \(problem)", nil, nil, nil, nil] }
        let here = path == nil ? nil : (updateAvailable ? "Update available · u" : "On this device")
        // Whether it is here comes first: a narrow row cuts from the end.
        return [here, size.map(Format.bytes), maps.map { "\($0) map\($0 == 1 ? "" : "s")" }, created.map { Format.date($0) }, owner]
    }
}

/// The Packages tab: Enter opens a package on this device, or downloads one from the portal and
/// opens it when it arrives; `u` fetches a newer version; `x` removes one from this device (asks).
extension App {
    private static func selectedPackage(_ maps: WebMapsBrowser) -> (row: MapListing, package: PackageListing)? {
        guard maps.rows.indices.contains(maps.selection), let package = maps.rows[maps.selection].package else { return nil }
        return (maps.rows[maps.selection], package)
    }

    static func openPackage(_ state: inout AppState, _ maps: inout WebMapsBrowser) -> [Effect] {
        guard let (row, package) = selectedPackage(maps), package.progress == nil else { return [] }
        // One here that reads opens; one that does not, or a failed download, is fetched again.
        if let path = package.path, package.problem == nil {
            state.overlay = nil
            state.handoff.nextPackage = path
            quit(&state)
            return []
        }
        guard let item = package.item else { return [] }
        maps.opensWhenDownloaded = item
        return startPackageDownload(&maps, row)
    }

    static func updatePackage(_ maps: inout WebMapsBrowser) -> [Effect] {
        guard let (row, package) = selectedPackage(maps), package.updateAvailable, package.progress == nil else { return [] }
        return startPackageDownload(&maps, row)
    }

    private static func startPackageDownload(_ maps: inout WebMapsBrowser, _ row: MapListing) -> [Effect] {
        guard let item = row.package?.item else { return [] }
        changePackage(item, in: &maps) {
            $0.problem = nil
            $0.progress = DownloadProgress(bytes: 0, total: $0.size, bytesPerSecond: nil)
        }
        return [.packages(.downloadPackage(item, title: row.title))]
    }

    static func askToRemovePackage(_ state: inout AppState, _ maps: WebMapsBrowser) {
        guard let (row, package) = selectedPackage(maps), let path = package.path, package.progress == nil else { return }
        state.overlay = .confirm(Confirmation(question: "Remove \(row.title) from this device?",
                                              detail: "\(package.size.map(Format.bytes) ?? "Its file") will be deleted."
                                                  + (package.item == nil ? "" : " It can be downloaded again."),
                                              action: .removePackage(path: path, title: row.title)))
    }

    /// The Packages tab's row for `item` changed by `change`, when the card shows it.
    private static func changePackage(_ item: ItemID, in maps: inout WebMapsBrowser, _ change: (inout PackageListing) -> Void) {
        guard var list = maps.lists[.packages], let index = list.firstIndex(where: { $0.package?.item == item }) else { return }
        change(&list[index].package!)
        maps.lists[.packages] = list
    }

    static func packageProgress(_ state: inout AppState, _ item: ItemID, _ progress: DownloadProgress) {
        guard case .maps(var maps)? = state.overlay else { return }
        changePackage(item, in: &maps) { if $0.progress != nil { $0.progress = progress } }
        state.overlay = .maps(maps)
    }

    /// A download ended: the row says where the package is now, or why it failed; the one Enter
    /// asked for opens while the card still shows it.
    static func packageDownloaded(_ state: inout AppState, _ item: ItemID, title: String, _ result: Result<PackageListing, LoadFailure>) {
        switch result {
        case .success(let arrived): state.notice = .downloaded(title: title, size: arrived.size ?? 0)
        case .failure(let failure): state.notice = .problem(TerminalText.sanitizedLine("\(title): \(failure.sentence)", maxLength: 300))
        }
        guard case .maps(var maps)? = state.overlay else { return }
        changePackage(item, in: &maps) { row in
            switch result {
            case .success(let arrived): row = arrived
            case .failure(let failure):
                row.progress = nil
                row.problem = TerminalText.sanitizedLine(failure.sentence, maxLength: 200)
            }
        }
        let opens = maps.opensWhenDownloaded == item
        if opens { maps.opensWhenDownloaded = nil }
        state.overlay = .maps(maps)
        if opens, maps.tab == .packages, case .success(let arrived) = result, let path = arrived.path,
           maps.rows.indices.contains(maps.selection), maps.rows[maps.selection].package?.item == item {
            state.overlay = nil
            state.handoff.nextPackage = path
            quit(&state)
        }
    }
}

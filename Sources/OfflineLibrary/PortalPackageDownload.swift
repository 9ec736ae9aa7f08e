import ArcGISModel
import ArcGISPortal
import Foundation
import HTTP
import LibraryModel
import MapbookCore
import MobilePackages

/// Downloads a portal's "Mobile Map Package" item onto this device, into the packages folder the
/// imported ones share (`DevicePackages`): streamed into `.downloads/<id>/` with a control file,
/// resumed from what is on disk, checked whole (every zip entry's CRC-32, and that it opens as a
/// mobile map package), then moved in under `<id>.mmpk` in one rename, replacing an older version
/// only once the new one is complete. A record of the item and version (`.origins/`) lets the list
/// say when the portal has a newer one.
public struct PortalPackageDownload: Sendable {
    public let item: PortalItem
    public let packages: DevicePackages
    let client: PortalClient
    let http: HTTPClient
    /// The fleet mirror the bytes come from when it holds this version.
    let mirror: Mirror?
    /// Wait for another process's download of the item to end instead of failing at once.
    public var waitForLock = false

    public init(item: PortalItem, libraryRoot: String, client: PortalClient, http: HTTPClient = HTTPClient(), mirror: Mirror? = nil) {
        self.item = item; self.packages = DevicePackages(libraryRoot: libraryRoot); self.client = client; self.http = http
        self.mirror = mirror
    }

    /// The item `id` as the portal describes it, or as the fleet mirror staged it when the portal
    /// cannot be reached: what the browser's Packages tab and `mapbook download` both start from.
    public static func item(_ id: ItemID, client: PortalClient, mirror: Mirror?) async throws -> PortalItem {
        try await Mirror.preferringPortal(client, mirror: mirror) { try await $0.item(id) }
    }

    private var workDirectory: String { packages.folder + "/.downloads/" + item.id.rawValue }
    private var fileName: String { DevicePackages.fileName(for: item.id) }

    /// The transfer into the work folder, from the portal unless `request` says otherwise.
    private func transfer(from request: HTTPRequest? = nil) -> ResumableTransfer {
        ResumableTransfer(http: http, request: request ?? client.packageRequest(item.id), part: workDirectory + "/package.part",
                          controlPath: workDirectory + "/package.json", itemID: item.id,
                          modified: item.modified?.epochMilliseconds, expectedSize: item.size.flatMap { $0 > 0 ? $0 : nil })
    }

    /// The copy on this device when it is this version of the item and reads.
    public var currentCopy: DevicePackages.Entry? {
        packages.downloaded(item.id).flatMap { !$0.isOutdated(by: item) && $0.problem == nil ? $0 : nil }
    }

    /// Runs the download; `report` gets the bytes so far and the total when known (from the HTTP
    /// thread), `started` the offset it resumes from. Throws `HTTPError` or `LibraryError`.
    public func run(started: (Int64) -> Void = { _ in },
                    report: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> DevicePackages.Entry {
        guard item.type == PortalItem.mobileMapPackageType else {
            throw LibraryError.notDownloadable(title: item.title, reason: .unavailable("it is a \(item.type) item, not a mobile map package"))
        }
        let lock = try await AreaLock.acquire(areaDirectory: workDirectory, title: item.title, wait: waitForLock)
        defer { withExtendedLifetime(lock) {} }
        let expected = item.size.flatMap { $0 > 0 ? $0 : nil }
        if let expected, let free = DiskSpace.available(at: packages.folder) {
            let transfer = transfer()
            let kept = transfer.control != nil ? AtomicFile.size(of: transfer.part) ?? 0 : 0
            if expected - kept > free { throw LibraryError.notEnoughSpace(title: item.title, needed: expected - kept, free: free) }
        }
        let fetched = try await Mirror.fetch(item.id, title: item.title, modified: item.modified, size: expected, mirror: mirror,
                                             portal: client.packageRequest(item.id)) { request, check in
            var transfer = transfer(from: request)
            transfer.hashing = check != nil
            let (result, checksums, streamed) = try await transfer.run(meter: AreaByteCount(), started: started) { report($0, expected) }
            let verifiedBy: String
            do {
                let vouched = try await Mirror.check(transfer.part, title: item.title, against: check, streamed: streamed)
                let verified = try PackageVerifier.verify(path: transfer.part, name: item.title, expectedSize: expected, fileName: fileName, streamed: checksums)
                verifiedBy = [vouched, verified].compactMap { $0 }.joined(separator: ", ")
                do throws(MobilePackageError) { _ = try MobileMapPackage(path: transfer.part) } catch {
                    throw LibraryError.damaged(package: item.title, detail: "it is not a mobile map package (\(error.sentence))")
                }
            } catch {
                transfer.discard()
                throw error
            }
            return (result, transfer, verifiedBy)
        }
        let (result, finished, verifiedBy) = fetched.value
        // The record first, then the file: a record that names another size than the file there is
        // not believed (see `DevicePackages`), so a crash between the two leaves nothing wrong said.
        let origin = PackageOrigin(portal: client.portalURL.absoluteString, itemID: item.id.rawValue, title: item.title,
                                   modified: item.modified?.epochMilliseconds ?? 0, size: result.size,
                                   downloadedAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)),
                                   mirror: fetched.mirror, mirrorProblem: fetched.mirrorProblem, verifiedBy: verifiedBy)
        try AtomicFile.makeDirectory(packages.folder + "/.origins")
        try AtomicFile.writeJSON(origin, to: packages.originPath(of: fileName))
        try AtomicFile.move(finished.part, to: packages.folder + "/" + fileName)
        unlink(finished.controlPath)
        try? FileManager.default.removeItem(atPath: workDirectory)
        guard let entry = packages.downloaded(item.id) else {
            throw LibraryError.damaged(package: item.title, detail: "it vanished once downloaded")
        }
        return entry
    }
}

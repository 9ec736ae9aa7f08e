import AppModel
import ArcGISModel
import ArcGISPortal
import EventLoop
import Foundation
import LibraryModel
import MapbookCore
import MobilePackages
import OfflineLibrary
import MapbookServices

/// The Maps card's Packages tab: its rows (this device's packages, then the portal's "Mobile Map
/// Package" items tagged Offline Mapbook), a portal package downloaded onto this device with its
/// progress — from the fleet mirror when it holds it, as `mapbook download` takes it — and a
/// package removed.
@UIActor
final class PackagesHandler {
    private let connection: PortalConnection
    private let root: String
    private let mirror: Mirror?
    private let send: EventSink
    private let tasks: TaskTracker

    init(connection: PortalConnection, root: String, mirror: Mirror?, send: EventSink, tasks: TaskTracker) {
        self.connection = connection; self.root = root; self.mirror = mirror; self.send = send; self.tasks = tasks
    }

    /// The tab's rows; without the portal (not connected, or failing) this device's alone, saying why.
    nonisolated static func page(client: PortalClient?, root: String) async -> Result<WebMapsPage, LoadFailure> {
        let device = await onWorkPool { DevicePackages(libraryRoot: root).list() }
        guard let client else {
            return .success(WebMapsPage(PackageShelf.listings(device: device, portal: []), note: "Not connected to the portal: the packages on this device."))
        }
        do {
            var found = try await client.allMobileMapPackages(from: .search("\"\(PortalItem.offlineMapbookKeyword)\""), limit: 200)
            if client.isSignedIn {
                for package in try await client.allMobileMapPackages(from: try await client.myContent(), limit: 200)
                where !found.contains(where: { $0.item.id == package.item.id }) { found.append(package) }
            }
            return .success(WebMapsPage(PackageShelf.listings(device: device, portal: found.map(\.item))))
        } catch {
            let sentence = TerminalText.sanitizedLine(LoadFailure(error, host: client.host).sentence, maxLength: 200)
            return .success(WebMapsPage(PackageShelf.listings(device: device, portal: []), note: "\(sentence) The packages on this device:"))
        }
    }

    func download(_ id: ItemID, title: String) {
        let (connection, root, mirror, send) = (connection, root, mirror, send)
        let latest = LatestProgress()
        tasks.track {
            // The bar moves a few times a second, however fast the bytes come; never after the end.
            let ticker = Task { @UIActor in
                while (try? await Task.sleep(for: .milliseconds(200))) != nil {
                    if let progress = latest.current { send(.packages(.packageProgress(id, progress))) }
                }
            }
            defer { ticker.cancel() }
            guard let client = connection.client else { return send(.packages(.packageDownloaded(id, title: title, .failure(.notConnected)))) }
            let result = await Self.fetch(id, client: client, root: root, mirror: mirror, report: latest.note)
            send(.packages(.packageDownloaded(id, title: title, result)))
        }
    }

    /// On mapbook's work threads: checking every entry of a package of gigabytes keeps a core busy.
    private nonisolated static func fetch(_ id: ItemID, client: PortalClient, root: String, mirror: Mirror?,
                                          report: @escaping @Sendable (Int64, Int64?) -> Void) async -> Result<PackageListing, LoadFailure> {
        do {
            let item = try await PortalPackageDownload.item(id, client: client, mirror: mirror)
            let entry = try await onWorkPool { () async throws -> DevicePackages.Entry in
                try await PortalPackageDownload(item: item, libraryRoot: root, client: client, mirror: mirror).run(report: report)
            }
            return .success(PackageShelf.listing(entry, item: item).package!)
        } catch {
            return .failure(LoadFailure(error, host: client.host))
        }
    }

    func remove(path: String, title: String) {
        let (root, send) = (root, send)
        tasks.track {
            let fileName = (path as NSString).lastPathComponent
            let result = await onWorkPool { () -> Result<Void, LoadFailure> in
                do {
                    try DevicePackages(libraryRoot: root).remove(fileName)
                    return .success(())
                } catch {
                    return .failure(LoadFailure(sentence: error.userSentence, network: .unknown, host: ""))
                }
            }
            send(.packages(.packageRemoved(title: title, result)))
        }
    }
}

extension PackagesHandler {
    /// Does the work `PackagesFeature` asks for.
    func perform(_ effect: PackagesFeature.Effect) {
        switch effect {
        case .downloadPackage(let id, let title): download(id, title: title)
        case .removePackage(let path, let title): remove(path: path, title: title)
        }
    }
}

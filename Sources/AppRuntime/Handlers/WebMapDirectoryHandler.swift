import AppModel
import ArcGISPortal
import EventLoop
import Foundation
import MapbookCore
import OfflineLibrary
import TileFormats
import ArcGISModel
import UserFiles
import MapbookServices

/// The Maps card's web maps: Recent from this device (the web maps opened lately on this portal,
/// then the others with areas downloaded here), the other tabs a page at a time from the portal;
/// and their thumbnails.
@UIActor
final class WebMapDirectoryHandler {
    private let connection: PortalConnection
    private let recent: RecentWebMaps?
    private let library: OfflineLibrary
    private let send: EventSink
    private let tasks: TaskTracker

    init(connection: PortalConnection, recent: RecentWebMaps?, library: OfflineLibrary, send: EventSink, tasks: TaskTracker) {
        self.connection = connection; self.recent = recent; self.library = library; self.send = send; self.tasks = tasks
    }

    func load(_ request: WebMapsRequest) {
        let (client, recent, library) = (connection.client, recent, library)
        tasks.track { [send] in send(.maps(.mapsLoaded(request, await Self.page(request, client: client, recent: recent, library: library)))) }
    }

    func loadThumbnails(_ listings: [MapListing]) {
        let (client, library) = (connection.client, library)
        tasks.track { [send] in
            let images = await Self.thumbnails(of: listings, client: client, library: library)
            if !images.isEmpty { send(.catalog(.thumbnails(images))) }
        }
    }

    /// A page of the Maps card. Recent is read from this device: the web maps opened lately on this
    /// portal, then the others with areas downloaded here; the other tabs ask the portal.
    nonisolated static func page(_ request: WebMapsRequest, client: PortalClient?, recent: RecentWebMaps?,
                                         library: OfflineLibrary) async -> Result<WebMapsPage, LoadFailure> {
        if request.tab == .packages { return await PackagesHandler.page(client: client, root: library.root) }
        if request.tab == .recent {
            let local = await onWorkPool { OfflineLibrary.recentWebMaps(recent?.all() ?? [], root: library.root, portalKey: library.portalKey) }
            return .success(WebMapsPage(local.map { map in
                let item = map.kept?.item
                return MapListing(id: map.id, title: map.title, owner: item?.owner, modified: map.opened ?? item?.modified,
                                  offline: item?.isOfflineEnabled, thumbnail: item?.thumbnail, downloadedAreas: map.kept?.downloadedAreas ?? 0)
            }))
        }
        guard let client else { return .failure(.notConnected) }
        guard client.isSignedIn || request.tab == .search else {
            return .failure(LoadFailure(sentence: "Sign in to see your content and groups: S, or mapbook auth login.", network: .online,
                                        host: client.host, needsSignIn: true))
        }
        do {
            var cursor = request.cursor ?? WebMapCursor(sources: [])
            if request.cursor == nil, request.tab == .mine { cursor = try await client.myContent() }
            if request.cursor == nil, request.tab == .groups { cursor = try await client.myGroups() }
            let page = try await client.webMaps(from: cursor, atLeast: mapsPageSize)
            let kept = await onWorkPool { OfflineLibrary.keptWebMaps(root: library.root, portalKey: library.portalKey) }
            let downloaded = Dictionary(kept.map { ($0.item.id, $0.downloadedAreas) }, uniquingKeysWith: { first, _ in first })
            return .success(WebMapsPage(page.maps.map { map in
                MapListing(id: map.item.id, title: map.item.title, owner: map.item.owner, modified: map.item.modified,
                           offline: map.item.isOfflineEnabled, folder: map.place, thumbnail: map.item.thumbnail,
                           downloadedAreas: downloaded[map.item.id] ?? 0)
            }, next: page.next))
        } catch {
            return .failure(LoadFailure(error, host: client.host))
        }
    }

    /// Web maps asked for at a time by the Maps card: a screenful or two.
    nonisolated static let mapsPageSize = 50

    /// The listings' thumbnails: the one kept with the web map's library, else the portal's.
    nonisolated static func thumbnails(of listings: [MapListing], client: PortalClient?,
                                               library: OfflineLibrary) async -> [ItemID: RasterImage] {
        // One at a time, each decoded and shrunk as it comes: only one thumbnail's bytes (2 MiB at
        // most) are ever held, however many web maps a page lists.
        var images: [ItemID: RasterImage] = [:]
        for listing in listings {
            if Task.isCancelled { break }
            let own = OfflineLibrary(root: library.root, portalKey: library.portalKey, webMap: listing.id)
            var bytes = await onWorkPool { own.thumbnail(for: listing.id) }
            if bytes == nil, let client, let name = listing.thumbnail {
                bytes = try? await client.thumbnail(of: listing.id, named: name)
            }
            guard let found = bytes else { continue }
            images.merge(await onWorkPool { Thumbnails.decode([listing.id: found]) }) { _, new in new }
        }
        return images
    }
}

extension WebMapDirectoryHandler {
    /// Does the work `MapsFeature` asks for.
    func perform(_ effect: MapsFeature.Effect) {
        switch effect {
        case .loadMaps(let request): load(request)
        case .loadMapThumbnails(let listings): loadThumbnails(listings)
        }
    }
}

import ArcGISPortal
import Foundation
import MapbookCore
import ArcGISModel
import LibraryModel

extension OfflineLibrary {
    /// Fetches the web map, its data and its areas from the portal (from the mirror when the portal
    /// cannot be reached) and keeps them, so the list and details work offline afterwards. Returns
    /// what it kept.
    public func sync(from portal: PortalClient) async throws -> LibraryCatalog {
        let catalog = try await Mirror.preferringPortal(portal, mirror: mirror) { client in
            async let item = client.webMapItem(webMapID)
            async let data = client.itemDataJSON(webMapID)
            async let areas = client.mapAreas(of: webMapID)
            return LibraryCatalog(webMapItem: try await item, webMapData: try await data, areas: try await areas, syncedAt: Date())
        }
        try saveCatalog(catalog)
        return catalog
    }

    /// Fetches and keeps the thumbnails not kept yet, and those of items modified since theirs was
    /// kept (asked about, not fetched again, when the portal gives validators); returns every
    /// thumbnail now on disk. A thumbnail that cannot be fetched is skipped (a kept one stays): it
    /// is not worth failing anything over.
    public func syncThumbnails(of items: [PortalItem], from client: PortalClient) async -> [ItemID: Data] {
        var found: [ItemID: Data] = [:]
        // One mirror that cannot be asked is asked no more this time: its timeout is paid once.
        var answering = mirror
        for item in items where item.thumbnail != nil {
            if Task.isCancelled { break }
            let kept = thumbnail(for: item.id)
            if let kept, let keptAt = thumbnailDate(for: item.id), (item.modified ?? .distantPast) <= keptAt {
                found[item.id] = kept
                continue
            }
            // From the fleet mirror when it holds this one; else the portal (the mirror when it is away).
            var fetched: Data?
            do { fetched = try await answering?.thumbnail(of: item) } catch { answering = nil }
            if fetched == nil { fetched = try? await Mirror.preferringPortal(client, mirror: answering, { try await $0.thumbnail(of: item) }) }
            guard let data = fetched else {
                found[item.id] = kept
                continue
            }
            try? saveThumbnail(data, for: item.id)
            found[item.id] = data
        }
        return found
    }
}

import ArcGISPortal
import Foundation
import MapbookAssets
import MapbookCore
import OfflineLibrary
import ArcGISModel
import Geometry
import Places

/// Finding places, one rule for the browser and the commands (`search`, `reverse`): the portal's
/// geocoder (found through `portals/self` once) while online; when offline, or when the geocoder
/// fails, the names on this device — the labels inside downloaded packages, the downloaded areas'
/// features by display field, and the bundled places — with the geocoder's failure said. What the
/// geocoder answers stands, even when it found nothing. The open map's own features (a mobile map
/// package's, a geodatabase's, an area's), by display field, come first either way.
public actor PlaceFinder {
    /// Who answered.
    public enum Source: String, Sendable { case geocoder, device }

    /// An answer, who gave it, and why the geocoder did not, when it was asked and failed.
    public struct Answer<Value: Sendable>: Sendable {
        public var value: Value
        public var source: Source
        public var problem: LoadFailure?
    }

    /// What is at a point: the geocoder's address, else the nearest named place on this device.
    public struct Description: Sendable {
        public var address: ReverseGeocodeResult?
        public var nearest: (place: PlaceName, meters: Double, direction: String)?
        public var problem: LoadFailure?
    }

    /// The portal's client when there is one (nil: this device only); asked each time, since the
    /// browser connects after it starts.
    private let client: @Sendable () async -> PortalClient?
    private let library: OfflineLibrary
    private let bundled: @Sendable () -> [PlaceName]
    private var geocoder: (client: URL, service: GeocodeService)?
    /// The names on this device and the downloads they were read from: a new download means reading again.
    private var names: (downloads: Set<ItemID>, index: PlaceIndex, gazetteer: Gazetteer)?
    /// The open map's features by display field, and the map's session.
    private var openMap: (session: Int, index: PlaceIndex)?
    /// The last map session closed: names arriving for it (or an older one) are dropped.
    private var closedSession = Int.min

    public init(client: @escaping @Sendable () async -> PortalClient?, library: OfflineLibrary,
                bundled: @escaping @Sendable () -> [PlaceName] = { MapbookAssets.placeNames() }) {
        self.client = client; self.library = library; self.bundled = bundled
    }

    /// Where a route's first named stop is looked for when nothing comes before it: the middle of the
    /// web map this library is for, as kept, so "Bangor" on a map of Maine is Bangor, Maine, and not
    /// the larger one an ocean away.
    public var webMapCentre: GeoPoint? {
        guard let extent = library.keptWebMapItem()?.extent else { return nil }
        return GeoPoint(longitude: (extent.xmin + extent.xmax) / 2, latitude: (extent.ymin + extent.ymax) / 2)
    }

    /// The open map's features, searched first until `mapClosed(session:)`.
    public func mapOpened(session: Int, features index: PlaceIndex) {
        guard session > closedSession else { return }
        openMap = index.places.isEmpty ? nil : (session, index)
    }

    public func mapClosed(session: Int) {
        closedSession = max(closedSession, session)
        if let openMap, openMap.session <= session { self.openMap = nil }
    }

    /// Suggestions for what is being typed.
    public func suggestions(for text: String, near: GeoPoint?, limit: Int, online: Bool) async -> Answer<[GeocodeSuggestion]> {
        let found = mapFeatures(text, near: near, limit: limit)
        let onMap = found.map { GeocodeSuggestion(text: $0.title, magicKey: nil) }
        let asked = online ? await geocode { client, service in try await client.suggest(text, near: near, limit: limit, using: service) } : nil
        if case .success(let answered)? = asked { return Answer(value: Array((onMap + answered).prefix(limit)), source: .geocoder) }
        let places = onDevice(text, near: near, limit: limit, besides: found).map { GeocodeSuggestion(text: $0.title, magicKey: nil) }
        return Answer(value: Array((onMap + places).prefix(limit)), source: .device, problem: asked?.failure)
    }

    /// Places for `text` (with a suggestion's `magicKey`, that place), best first.
    public func places(for text: String, magicKey: String? = nil, near: GeoPoint?, limit: Int, online: Bool) async -> Answer<[GeocodeCandidate]> {
        let onMap = mapFeatures(text, near: near, limit: limit)
        let asked = online ? await geocode { client, service in
            try await client.findCandidates(text, magicKey: magicKey, near: near, limit: limit, using: service)
        } : nil
        let shown = onMap.map { Self.candidate($0, onOpenMap: true) }
        if case .success(let found)? = asked { return Answer(value: Array((shown + found).prefix(limit)), source: .geocoder) }
        let places = onDevice(text, near: near, limit: limit, besides: onMap)
        return Answer(value: Array((shown + places.map { Self.candidate($0, onOpenMap: false) }).prefix(limit)), source: .device, problem: asked?.failure)
    }

    /// A name on this device as a candidate; its type says where it was found (a downloaded
    /// package, a layer, the world gazetteer).
    private static func candidate(_ place: PlaceName, onOpenMap: Bool) -> GeocodeCandidate {
        GeocodeCandidate(label: place.title, location: place.point, score: 100, extent: place.extent, type: place.origin, isOnOpenMap: onOpenMap)
    }

    private func mapFeatures(_ text: String, near: GeoPoint?, limit: Int) -> [PlaceName] {
        openMap?.index.search(text, near: near, limit: limit) ?? []
    }

    /// The names on this device for `text`, but for the open map's features found already (an
    /// area's, found again among the downloads): each said once.
    private func onDevice(_ text: String, near: GeoPoint?, limit: Int, besides onMap: [PlaceName]) -> [PlaceName] {
        deviceNames().index.search(text, near: near, limit: limit).filter { place in
            !onMap.contains { $0.name == place.name && Geodesy.distance($0.point, place.point) < 100 }
        }
    }

    /// The address at `point`; where the geocoder knows none (or cannot be asked), the nearest
    /// named place on this device.
    public func describe(_ point: GeoPoint, online: Bool) async -> Description {
        let asked = online ? await geocode { client, service in try await client.reverseGeocode(point, using: service) } : nil
        if case .success(let address?)? = asked { return Description(address: address) }
        return Description(nearest: deviceNames().gazetteer.nearest(to: point), problem: asked?.failure)
    }

    /// The geocoder's address at `point`, nothing else (for labelling pins).
    public func address(at point: GeoPoint) async -> ReverseGeocodeResult? {
        guard case .success(let address?) = await geocode({ client, service in try await client.reverseGeocode(point, using: service) })
        else { return nil }
        return address
    }

    /// A geocoder operation, the geocoder found through the portal the first time.
    private func geocode<T: Sendable>(_ operation: @Sendable (PortalClient, GeocodeService) async throws -> T) async -> Result<T, LoadFailure> {
        guard let client = await client() else { return .failure(.notConnected) }
        do {
            let service: GeocodeService
            if let geocoder, geocoder.client == client.portalURL { service = geocoder.service } else {
                service = try await client.geocodeService()
                geocoder = (client.portalURL, service)
            }
            return .success(try await operation(client, service))
        } catch {
            return .failure(LoadFailure(error, host: client.host))
        }
    }

    /// The names on this device, read again when the downloads changed.
    private func deviceNames() -> (downloads: Set<ItemID>, index: PlaceIndex, gazetteer: Gazetteer) {
        let downloads = Set(library.downloadRecords().keys)
        if let names, names.downloads == downloads { return names }
        let all = library.downloadedPlaceNames() + bundled()
        let read = (downloads, PlaceIndex(places: all), Gazetteer(places: all))
        names = read
        return read
    }
}

private extension Result {
    var failure: Failure? { if case .failure(let failure) = self { failure } else { nil } }
}

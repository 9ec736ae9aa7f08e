import AppModel
import ArcGISPortal
import EventLoop
import Foundation
import MapbookAssets
import MapbookCore
import OfflineLibrary

/// Finding places: the portal's geocoder while online (found through `portals/self` once), the
/// names on this device otherwise or when the geocoder fails; what is at a point, else the
/// nearest bundled place; the addresses of pins.
@UIActor
final class PlacesHandler {
    private let connection: PortalConnection
    private let send: EventSink
    private let tasks: TaskTracker
    /// The names on this device: those inside downloaded packages and the bundled places.
    private let localNames: @Sendable () -> [PlaceName]
    /// Which downloads the names were read from: a new download means reading them again.
    private let downloads: @Sendable () -> Set<ItemID>
    private let bundledPlaces: @Sendable () -> [PlaceName]

    private var geocoder: GeocodeService?
    private var gazetteer: Gazetteer?
    private var places: (downloads: Set<ItemID>, index: PlaceIndex)?
    /// The suggestions asked for last: a newer keystroke cancels it, even in flight.
    private var suggesting: Task<Void, Never>?

    init(connection: PortalConnection, send: EventSink, tasks: TaskTracker, library: OfflineLibrary,
         bundledPlaces: @escaping @Sendable () -> [PlaceName] = { MapbookAssets.placeNames() }) {
        self.connection = connection; self.send = send; self.tasks = tasks; self.bundledPlaces = bundledPlaces
        localNames = { library.downloadedPlaceNames() + bundledPlaces() }
        downloads = { Set(library.downloadRecords().keys) }
    }

    func suggest(_ text: String, request: Int, near: GeoPoint?, online: Bool) {
        suggesting?.cancel()
        suggesting = tasks.track { [weak self] in
            // Typing on within the pause asks again, and this request never goes out.
            try? await Task.sleep(for: .milliseconds(150))
            guard !Task.isCancelled, let self else { return }
            if online, case .success(let suggestions) = await self.geocode({ client, service in
                try await client.suggest(text, near: near, using: service)
            }) {
                guard !Task.isCancelled else { return }
                self.send(.placeSuggestions(request: request, .success(suggestions), offline: false))
                return
            }
            // Offline, or the geocoder failed: the names on this device.
            let places = await self.offlinePlaces().search(text, near: near, limit: 8)
            guard !Task.isCancelled else { return }
            self.send(.placeSuggestions(request: request, .success(places.map { GeocodeSuggestion(text: $0.name, magicKey: nil) }),
                                        offline: true))
        }
    }

    func find(_ text: String, magicKey: String?, request: Int, near: GeoPoint?, online: Bool) {
        suggesting?.cancel()
        tasks.track { [weak self] in
            guard let self else { return }
            if online, case .success(let found) = await self.geocode({ client, service in
                try await client.findCandidates(text, magicKey: magicKey, near: near, limit: 5, using: service)
            }), !found.isEmpty {
                self.send(.placesFound(request: request, .success(found)))
                return
            }
            let places = await self.offlinePlaces().search(text, near: near, limit: 5)
            self.send(.placesFound(request: request, .success(places.map {
                GeocodeCandidate(label: $0.name, location: $0.point, score: 100, extent: nil, type: "on this device")
            })))
        }
    }

    func describe(_ point: GeoPoint, request: Int, online: Bool) {
        tasks.track { [weak self] in
            guard let self else { return }
            var problem: String?
            if online {
                switch await self.geocode({ client, service in try await client.reverseGeocode(point, using: service) }) {
                case .success(let address?):
                    self.send(.placeDescribed(request: request, .address(address.label)))
                    return
                case .success(nil): break
                case .failure(let failure): problem = failure.sentence
                }
            }
            let near = await self.nearestNamedPlace(to: point)
            self.send(.placeDescribed(request: request, near.map {
                .near(name: $0.place.name, meters: $0.meters, direction: $0.direction, geocoderProblem: problem)
            } ?? .nothing))
        }
    }

    func describePins(_ pins: [Pin]) {
        tasks.track { [weak self] in
            guard let self else { return }
            var places: [String: String] = [:]
            for pin in pins {
                let point = GeoPoint(longitude: pin.longitude, latitude: pin.latitude)
                guard case .success(let address?) = await self.geocode({ client, service in try await client.reverseGeocode(point, using: service) })
                else { continue }
                places[pin.id] = address.label
            }
            if !places.isEmpty { self.send(.pinPlaces(places)) }
        }
    }

    /// The nearest of the bundled places (Maine's, and the world's cities), read once, off the UI thread.
    private func nearestNamedPlace(to point: GeoPoint) async -> (place: PlaceName, meters: Double, direction: String)? {
        let bundledPlaces = bundledPlaces
        if gazetteer == nil { gazetteer = await onWorkPool { Gazetteer(places: bundledPlaces()) } }
        return gazetteer?.nearest(to: point)
    }

    /// The index of the names on this device, read (off the UI thread) when the downloads changed.
    private func offlinePlaces() async -> PlaceIndex {
        let (downloads, localNames) = (downloads, localNames)
        let current = await onWorkPool { downloads() }
        if let places, places.downloads == current { return places.index }
        let index = await onWorkPool { PlaceIndex(places: localNames()) }
        places = (current, index)
        return index
    }

    /// A geocoder operation, the geocoder found through the portal the first time.
    private func geocode<T: Sendable>(_ operation: @Sendable (PortalClient, GeocodeService) async throws -> T) async -> Result<T, LoadFailure> {
        guard let client = connection.client else { return .failure(.notConnected) }
        do {
            let service: GeocodeService
            if let geocoder { service = geocoder } else {
                service = try await client.geocodeService()
                geocoder = service
            }
            return .success(try await operation(client, service))
        } catch {
            return .failure(LoadFailure(error, host: client.host))
        }
    }
}

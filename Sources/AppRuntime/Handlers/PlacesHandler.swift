import AppModel
import ArcGISPortal
import EventLoop
import Foundation
import MapbookCore
import OfflineLibrary
import Geometry
import Places
import UserFiles
import MapbookServices

/// Finding places for the browser, through the `PlaceFinder` the commands use too: suggestions as
/// the user types (a newer keystroke's `Effect.cancel` stops the last, even in flight), places for
/// a search, what is at a point, the addresses of pins.
@UIActor
final class PlacesHandler {
    private let finder: PlaceFinder
    private let send: EventSink
    private let tasks: TaskTracker

    init(finder: PlaceFinder, send: EventSink, tasks: TaskTracker) {
        self.finder = finder; self.send = send; self.tasks = tasks
    }

    func suggest(_ text: String, request: RequestID, near: GeoPoint?, online: Bool) {
        let finder = finder
        tasks.track(request: request) { [send] in
            // Typing on within the pause asks again, and this request never goes out.
            try? await Task.sleep(for: .milliseconds(150))
            guard !Task.isCancelled else { return }
            let answer = await finder.suggestions(for: text, near: near, limit: Self.suggestions(online: online), online: online)
            guard !Task.isCancelled else { return }
            send(.search(.placeSuggestions(request: request, .success(answer.value), offline: answer.source == .device)))
        }
    }

    func find(_ text: String, magicKey: String?, request: RequestID, near: GeoPoint?, online: Bool) {
        let finder = finder
        tasks.track(request: request) { [send] in
            let answer = await finder.places(for: text, magicKey: magicKey, near: near, limit: 5, online: online)
            send(.search(.placesFound(request: request, .success(answer.value))))
        }
    }

    func describe(_ point: GeoPoint, request: RequestID, online: Bool) {
        let finder = finder
        tasks.track { [send] in
            let found = await finder.describe(point, online: online)
            if let address = found.address { return send(.search(.placeDescribed(request: request, .address(address.label)))) }
            send(.search(.placeDescribed(request: request, found.nearest.map {
                .near(sentence: Gazetteer.sentence($0), geocoderProblem: found.problem?.sentence)
            } ?? .nothing)))
        }
    }

    /// Suggestions shown: the geocoder's few, or more of the names on this device.
    private nonisolated static func suggestions(online: Bool) -> Int { online ? 6 : 8 }
}

extension PlacesHandler {
    /// Does the work `SearchFeature` asks for.
    func perform(_ effect: SearchFeature.Effect) {
        switch effect {
        case .suggestPlaces(let text, let request, let near, let online): suggest(text, request: request, near: near, online: online)
        case .findPlaces(let text, let magicKey, let request, let near, let online): find(text, magicKey: magicKey, request: request, near: near, online: online)
        case .describePlace(let point, let request, let online): describe(point, request: request, online: online)
        }
    }
}

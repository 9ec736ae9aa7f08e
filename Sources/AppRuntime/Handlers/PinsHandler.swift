import AppModel
import EventLoop
import Foundation
import Geometry
import MapbookCore
import OfflineLibrary
import UserFiles
import MapbookServices

/// The user's pins — read, kept, changed, deleted in the `PinStore` off the UI thread — and the
/// links they carry, handed to the browser.
@UIActor
final class PinsHandler {
    private let store: PinStore
    private let send: EventSink
    private let tasks: TaskTracker
    private let openLink: @Sendable (String) -> String?
    private let finder: PlaceFinder

    init(store: PinStore, finder: PlaceFinder, send: EventSink, tasks: TaskTracker,
         openLink: @escaping @Sendable (String) -> String? = LinkOpener.open) {
        self.store = store; self.finder = finder; self.send = send; self.tasks = tasks; self.openLink = openLink
    }

    /// The pins' places from the geocoder (online only: the feature asks only then).
    func describePlaces(of pins: [Pin]) {
        let finder = finder
        tasks.track { [send] in
            var places: [String: String] = [:]
            for pin in pins {
                guard let address = await finder.address(at: GeoPoint(longitude: pin.longitude, latitude: pin.latitude)) else { continue }
                places[pin.id] = address.label
            }
            if !places.isEmpty { send(.pins(.pinPlaces(places))) }
        }
    }

    func load() { changePins { _ in } }

    func save(_ draft: PinDraft) {
        let store = store
        tasks.track { [send] in
            let result = await onWorkPool { () -> Result<[Pin], PinError> in
                do {
                    if let id = draft.id {
                        try store.update(id, title: draft.title, note: draft.note, link: draft.link)
                    } else {
                        try store.add(title: draft.title, note: draft.note, link: draft.link, at: draft.point, accuracy: draft.accuracy)
                    }
                    return .success(try store.load())
                } catch {
                    return .failure(PinError(error.userSentence))
                }
            }
            switch result {
            case .success(let pins): send(.pins(.pinsLoaded(pins, problem: nil)))
            case .failure(let error): send(.pins(.pinNotSaved(error.userMessage)))
            }
        }
    }

    func delete(_ id: String) { changePins { store in _ = try store.remove(id) } }

    func open(_ link: String) {
        let openLink = openLink
        tasks.track { [send] in
            let problem = await onWorkPool { openLink(link) }
            send(.pins(.linkOpened(problem: problem)))
        }
    }

    /// Runs `change` on the store, then tells the pins as they now are (and why the change or the
    /// reading failed, if it did).
    private func changePins(_ change: @escaping @Sendable (PinStore) throws -> Void) {
        let store = store
        tasks.track { [send] in
            let (pins, problem) = await onWorkPool { () -> ([Pin], String?) in
                do {
                    try change(store)
                    return (try store.load(), nil)
                } catch {
                    return ((try? store.load()) ?? [], error.userSentence)
                }
            }
            send(.pins(.pinsLoaded(pins, problem: problem)))
        }
    }
}

extension PinsHandler {
    /// Does the work `PinsFeature` asks for.
    func perform(_ effect: PinsFeature.Effect) {
        switch effect {
        case .loadPins: load()
        case .savePin(let draft): save(draft)
        case .deletePin(let id): delete(id)
        case .describePins(let list): describePlaces(of: list)
        case .openLink(let link): open(link)
        }
    }
}

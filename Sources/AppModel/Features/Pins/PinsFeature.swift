import UserFiles
import MapbookCore

/// The user's pins: kept, edited, deleted, their places, their links opened.
public enum PinsFeature {
    /// What comes back from this feature's work (`Event.pins`).
    public enum Action: Sendable {
        /// The user's pins as now kept; a sentence when the file could not be read (kept aside).
        case pinsLoaded([Pin], problem: String?)
        case pinNotSaved(String)
        /// Pins' places, by pin id.
        case pinPlaces([String: String])
        /// The browser was started for a link, or why not.
        case linkOpened(problem: String?)
    }

    /// The work this feature asks for (`Effect.pins`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Read the user's pins (→ `pinsLoaded`).
        case loadPins
        /// Keep a new pin, or a pin's new title, note and link (→ `pinsLoaded`, or `pinNotSaved`).
        case savePin(PinDraft)
        case deletePin(id: String)
        /// The places of these pins from the geocoder (→ `pinPlaces`), online only.
        case describePins([Pin])
        /// Hand an http(s) link to `$BROWSER` or `xdg-open` (→ `linkOpened`).
        case openLink(String)
    }
}

extension App {
    /// `PinsFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: PinsFeature.Action) -> [Effect] {
        switch action {
        case .pinsLoaded(let pins, let problem):
            return pinsLoaded(&state, pins, problem: problem)
        case .pinNotSaved(let sentence):
            return pinNotSaved(&state, sentence)
        case .pinPlaces(let places):
            for (id, place) in places { state.pins.places[id] = TerminalText.sanitizedLine(place, maxLength: 200) }
            return []
        case .linkOpened(let problem):
            if let problem { state.notice = .problem(TerminalText.sanitizedLine(problem, maxLength: 400)) }
            return []
        }
    }
}

extension PinsFeature {
    /// What the pins say in the status bar (`Notice.pins`); news that fades.
    public enum Notice: Equatable, Sendable {
        case noPins
        case pinKept(String)
        case pinDeleted(String)

        func sentence(keys: [KeyBinding]) -> String {
            switch self {
            case .noPins: "No pins yet: \(KeyMap.key(for: .map(.dropPin), keys) ?? "its key") drops one at the centre of the map."
            case .pinKept(let title): "Pin kept: \(title)"
            case .pinDeleted(let title): "Deleted the pin \(title)."
            }
        }
    }
}

import Foundation
import MapbookCore

/// A web map offered by the Maps card.
public struct MapListing: Equatable, Sendable {
    public var id: ItemID
    public var title: String
    public var owner: String?
    public var modified: Date?
    /// Set up for offline use (its `Offline` type keyword); nil when unknown (a recent one).
    public var offline: Bool?
    /// The folder of your content it is in.
    public var folder: String?

    public init(id: ItemID, title: String, owner: String? = nil, modified: Date? = nil, offline: Bool? = nil, folder: String? = nil) {
        self.id = id; self.title = title; self.owner = owner; self.modified = modified; self.offline = offline; self.folder = folder
    }
}

/// Where the Maps card's web maps come from.
public enum MapsTab: Int, CaseIterable, Sendable {
    case recent, mine, groups

    public var title: String {
        switch self {
        case .recent: "Recent"
        case .mine: "My content"
        case .groups: "Groups"
        }
    }
}

/// `M`: web maps to open, by tab: each tab's list (nil until it arrives), why it could not be had,
/// and the row chosen.
public struct MapsBrowser: Equatable, Sendable {
    public var tab: MapsTab = .recent
    public var lists: [MapsTab: [MapListing]] = [:]
    public var problems: [MapsTab: String] = [:]
    public var selection = 0

    public var rows: [MapListing] { lists[tab] ?? [] }
}

/// The Maps card: `M` opens it on the web maps opened lately; ←→ (or Tab) move between Recent, My
/// content and Groups, each asked for the first time it shows; Enter opens the web map chosen
/// (the browser starts again on it); Esc closes.
extension App {
    static func showMaps(_ state: inout AppState) -> [Effect] {
        state.overlay = .maps(MapsBrowser())
        return [.loadMaps(.recent)]
    }

    static func inMaps(_ state: inout AppState, _ intent: Intent) -> [Effect] {
        guard case .maps(var maps)? = state.overlay else { return [] }
        var effects: [Effect] = []
        switch intent {
        case .moveUp: maps.selection = max(maps.selection - 1, 0)
        case .moveDown: maps.selection = min(maps.selection + 1, max(maps.rows.count - 1, 0))
        case .moveLeft, .moveRight, .switchFocus:
            let count = MapsTab.allCases.count
            maps.tab = MapsTab(rawValue: (maps.tab.rawValue + (intent == .moveLeft ? count - 1 : 1)) % count)!
            maps.selection = 0
            if maps.lists[maps.tab] == nil, maps.problems[maps.tab] == nil { effects.append(.loadMaps(maps.tab)) }
        case .open:
            guard maps.rows.indices.contains(maps.selection) else { return [] }
            let chosen = maps.rows[maps.selection]
            state.overlay = nil
            guard chosen.id != state.webMapID else { return [] }
            state.nextWebMap = chosen.id
            quit(&state)
            return []
        case .back, .showMaps:
            state.overlay = nil
            return []
        case .quit:
            state.overlay = nil
            quit(&state)
            return []
        default:
            return []
        }
        state.overlay = .maps(maps)
        return effects
    }

    static func mapsLoaded(_ state: inout AppState, _ tab: MapsTab, _ result: Result<[MapListing], LoadFailure>) -> [Effect] {
        guard case .maps(var maps)? = state.overlay else { return [] }
        switch result {
        case .success(let listings):
            maps.lists[tab] = listings.map { listing in
                var clean = listing
                clean.title = TerminalText.sanitizedLine(listing.title, maxLength: 200)
                clean.owner = listing.owner.map { TerminalText.sanitizedLine($0, maxLength: 100) }
                clean.folder = listing.folder.map { TerminalText.sanitizedLine($0, maxLength: 100) }
                return clean
            }
        case .failure(let failure):
            maps.problems[tab] = TerminalText.sanitizedLine(failure.sentence, maxLength: 300)
        }
        state.overlay = .maps(maps)
        return []
    }
}

import Foundation
import MapbookCore
import LibraryModel
import ArcGISModel

/// The portal's basemap gallery, as far as it is known.
public enum BasemapGallery: Equatable, Sendable {
    case notAsked
    case loading
    case loaded([BasemapChoice])
    /// One sentence; `B` asks again.
    case failed(String)
}

/// A row of the basemap list: the web map's own basemap, one of the portal's gallery, or (what
/// draws without the network) a downloaded area's package.
public struct BasemapOption: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case webMap(Basemap)
        case gallery(Basemap)
        case package(area: ItemID, DownloadRecord.Package)
        /// A line that says what is happening (the gallery loading, or why it is missing).
        case message
    }

    public var title: String
    public var kind: Kind
    /// The map is drawn on this one now.
    public var isCurrent: Bool

    /// The row as the list shows it: a mark for the current one, the title, what it is made of.
    public var label: String {
        let mark = kind == .message ? "  " : isCurrent ? "● " : "  "
        return mark + title + (detail.map { " · " + $0 } ?? "")
    }

    var detail: String? {
        switch kind {
        case .webMap(let basemap): "this web map's own, " + basemap.composition
        case .gallery(let basemap): basemap.composition
        case .package: "on this device"
        case .message: nil
        }
    }
}

extension App {
    /// `B` in the map view: the list of basemaps. Online, the portal's gallery is asked for the
    /// first time (and after a failure); offline, the list holds what draws without the network.
    static func showBasemaps(_ state: inout AppState) -> [Effect] {
        guard let map = state.map, !map.isStandalone else {
            state.notice = .map(.noBasemapChoice)
            return []
        }
        var effects: [Effect] = []
        if !state.portal.network.isCutOff, state.portal.isConnected {
            switch state.basemaps.gallery {
            case .notAsked, .failed:
                state.basemaps.gallery = .loading
                effects.append(.map(.loadBasemapGallery))
            case .loading, .loaded: break
            }
        }
        let current = state.basemapOptions.firstIndex(where: \.isCurrent) ?? 0
        state.withMap { map in
            map.panel = .basemaps
            map.panelSelection = current
        }
        return effects
    }

    static func basemapGalleryArrived(_ state: inout AppState, _ result: Result<[BasemapChoice], LoadFailure>) -> [Effect] {
        // The row selected keeps its selection as the gallery's rows come in around it.
        let before = state.basemapOptions, selection = state.map?.panelSelection ?? 0
        let selected = before.indices.contains(selection) ? before[selection] : nil
        switch result {
        case .success(let choices): state.basemaps.gallery = .loaded(choices.map(DisplayText.basemapChoice))
        case .failure(let failure): state.basemaps.gallery = .failed(TerminalText.sanitizedLine(failure.sentence, maxLength: 300))
        }
        guard state.map?.panel == .basemaps else { return [] }
        let options = state.basemapOptions
        state.withMap { $0.panelSelection = options.firstIndex { $0.kind == selected?.kind } ?? options.firstIndex(where: \.isCurrent) ?? 0 }
        return []
    }

    /// Enter in the basemap list: the map reopens on the one chosen, at the same view. A basemap
    /// (the gallery's, or the web map's own again) is remembered for this web map; the overview
    /// keeps the web map's own (`AppState.overviewBasemap`).
    static func chooseBasemap(_ state: inout AppState, _ option: BasemapOption) -> [Effect] {
        var effects: [Effect] = []
        let source: MapSourceChoice
        let name: String
        switch option.kind {
        case .message:
            return []
        case .webMap(let basemap), .gallery(let basemap):
            let chosen: Basemap? = if case .gallery = option.kind { basemap } else { nil }
            if state.basemaps.chosen != chosen {
                state.basemaps.chosen = chosen
                effects.append(.map(.rememberBasemap(chosen)))
            }
            source = .basemap(basemap)
            name = sourceName(basemap, state)
        case .package(let area, let package):
            source = .package(area: area, package)
            name = packageSourceName(option.title)
        }
        state.notice = .map(.basemapChosen(option.title))
        return effects + reopenMap(&state, sourceName: name, source: source) + requestOverviewDraw(&state)
    }

    /// The open map on another source, keeping its title, view, bookmarks and drawing mode.
    private static func reopenMap(_ state: inout AppState, sourceName: String, source: MapSourceChoice) -> [Effect] {
        guard let old = state.map else { return [] }
        state.requests.mapSessions += 1
        var map = newMap(session: state.requests.mapSessions, title: old.title, sourceName: sourceName, home: old.homeExtent,
                         bookmarks: old.bookmarks, layout: state.layout)
        map.viewport = old.viewport
        map.mode = old.mode
        map.area = old.area
        map.image = old.image
        map.fitsHomeWhenOpened = false
        map.source = source
        map.operational = old.operational
        map.isOpeningLayers = old.operational != nil
        state.screen = .map(map)
        let layers: [Effect] = old.operational.map { [.map(.openFeatureLayers(session: map.session, $0))] } ?? []
        return [.map(.closeMap(session: old.session)), .map(.openMap(session: map.session, source))] + layers
    }

    /// The header's name of a basemap: online, or offline from the tiles it kept.
    static func sourceName(_ basemap: Basemap, _ state: AppState) -> String {
        "\(basemap.title ?? basemap.drawableLayers.first?.title ?? "basemap") · \(state.portal.network.isCutOff ? "offline, tiles seen before" : "online")"
    }

    static func packageSourceName(_ title: String) -> String { "\(title) · on this device" }
}

extension AppState {
    /// The rows of the basemap list, derived from the state: the web map's own basemap and the
    /// gallery's while online; the downloaded areas always.
    public var basemapOptions: [BasemapOption] {
        let current = map?.source
        var options: [BasemapOption] = []
        if !portal.network.isCutOff {
            if let own = catalog.webMap?.basemap, !own.drawableLayers.isEmpty {
                options.append(BasemapOption(title: own.title ?? "Basemap", kind: .webMap(own),
                                             isCurrent: current == .basemap(own)))
            }
            switch basemaps.gallery {
            case .loaded(let choices):
                for choice in choices where choice.basemap != catalog.webMap?.basemap {
                    options.append(BasemapOption(title: choice.item.title, kind: .gallery(choice.basemap),
                                                 isCurrent: current == .basemap(choice.basemap)))
                }
                if choices.isEmpty { options.append(BasemapOption(title: "This portal offers no basemap gallery.", kind: .message, isCurrent: false)) }
            case .loading:
                options.append(BasemapOption(title: "Asking the portal for its basemaps…", kind: .message, isCurrent: false))
            case .failed(let sentence):
                options.append(BasemapOption(title: sentence, kind: .message, isCurrent: false))
            case .notAsked:
                break
            }
        }
        for (index, area) in catalog.areas.enumerated() {
            guard let record = library.downloads[area.item.id], let package = record.mapPackages.first else { continue }
            let title = title(of: .area(index))
            options.append(BasemapOption(title: title, kind: .package(area: area.item.id, package),
                                         isCurrent: current == .package(area: area.item.id, package)))
        }
        if options.isEmpty {
            options.append(BasemapOption(title: "Offline, and no area is on this device.", kind: .message, isCurrent: false))
        }
        return options
    }
}

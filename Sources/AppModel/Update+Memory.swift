import Foundation
import MapRender
import MapbookCore
import ArcGISModel
import Geometry
import UserFiles

/// What the browser remembers of a web map between runs (`RememberedView`): the list's order and
/// selection, and the map that was open — where, how far in, how drawn. The command saves
/// `viewToRemember` when the browser closes and hands it back with `restore` the next time.
extension AppState {
    /// Where the browser is now; nil before the web map is listed, and for a file's map.
    public var viewToRemember: RememberedView? {
        guard catalog.webMapItem != nil, map?.isStandalone != true else { return nil }
        let order: String = switch list.order {
        case .name: "name"
        case .size: "size"
        case .portal, .nearest: "portal"
        }
        let selected = selectedAreaIndex.map { catalog.areas[$0].item.id.rawValue }
        var remembered: RememberedView.Map?
        if let map, map.source != nil {
            let centre = map.viewport.center.geographic
            remembered = RememberedView.Map(area: map.area?.rawValue, longitude: centre.longitude, latitude: centre.latitude, zoom: map.viewport.zoom,
                                            mode: map.mode.rawValue)
        }
        return RememberedView(order: order, downloadedFirst: list.downloadedFirst, selectedArea: selected, map: remembered)
    }

    /// Takes a remembered view: the order at once; the selection and the map once the list is in.
    public mutating func restore(_ view: RememberedView) {
        list.order = switch view.order {
        case "name": .name
        case "size": .size
        default: .portal
        }
        list.downloadedFirst = view.downloadedFirst ?? false
        catalog.viewToRestore = view
    }
}

extension App {
    /// The first whole list: the remembered row selected and its map opened where it was left
    /// (an area no longer listed leaves the list at its top and no map open).
    static func restoreView(_ state: inout AppState) -> [Effect] {
        guard let view = state.catalog.viewToRestore else { return [] }
        state.catalog.viewToRestore = nil
        func row(of area: String?) -> Int? {
            guard let area else { return state.rows.firstIndex(of: .webMap) }
            guard let id = ItemID(area), let index = state.catalog.areas.firstIndex(where: { $0.item.id == id }) else { return nil }
            return state.rows.firstIndex(of: .area(index))
        }
        if let selected = row(of: view.selectedArea) { state.list.selection = selected }
        guard let remembered = view.map, let mapRow = row(of: remembered.area) else { return [] }
        state.list.selection = mapRow
        let effects = openMap(&state)
        state.withMap { map in
            map.viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: remembered.longitude, latitude: remembered.latitude)),
                                       zoom: remembered.zoom)
            map.mode = MapMode(rawValue: remembered.mode) ?? map.mode
            map.fitsHomeWhenOpened = false
        }
        return effects
    }
}

import Foundation
import MapRender
import MapbookCore
import ArcGISModel
import Geometry

/// Operational layers and identify: the layers open beside the basemap (their names head the layer
/// list, with their legends), and `i` asks what lies at the centre of the view.
extension App {
    /// Where the map being opened takes its operational layers from: a downloaded area's copies,
    /// else the web map's layers, their services asked while the network is there.
    static func operationalLayers(_ state: AppState, area: ItemID?) -> OperationalLayers? {
        let layers = state.catalog.webMap?.flatOperationalLayers ?? []
        guard !layers.isEmpty else { return nil }
        return OperationalLayers(area: area, layers: layers, online: !state.portal.network.isCutOff)
    }

    static func featureLayersOpened(_ state: inout AppState, session: Int, _ summary: FeatureLayersSummary) -> [Effect] {
        guard state.map?.session == session else { return [] }
        func name(_ title: String) -> String { TerminalText.sanitizedLine(title, maxLength: 80) }
        state.withMap { map in
            map.isOpeningLayers = false
            // Upper layers first; those only listed, at the bottom.
            map.operationalLayers = summary.titles.reversed().map(name) + summary.listedOnly.map(name)
            map.listedOnlyLayers = Set(summary.listedOnly.map(name))
            for title in summary.hidden { map.hiddenLayers.insert(name(title)) }
            for (title, entries) in summary.legend { map.legend[name(title)] = entries }
            // Layers opened again (an edit saved) say their problems once.
            for problem in summary.problems.map({ TerminalText.sanitizedLine($0, maxLength: 300) }) where !map.problems.contains(problem) {
                map.problems.append(problem)
            }
        }
        return requestMapDraw(&state)
    }

    /// `i`: identify at the centre of the view; a click: at the middle of the cell clicked.
    static func identify(_ state: inout AppState, cell: (column: Int, row: Int)? = nil) -> [Effect] {
        guard let map = state.map, map.isOpen, let request = mapRequest(state) else { return [] }
        let point = cell.map { Self.point(at: $0, of: map, request) } ?? map.viewport.center.geographic
        let id = (map.identify?.id ?? 0) + 1
        state.withMap { $0.identify = IdentifyState(id: id, point: point) }
        state.notice = nil
        return [.map(.identify(session: map.session, point: point, request: request, id: id))]
    }

    /// The middle of a cell of the map, on the globe.
    static func point(at cell: (column: Int, row: Int), of map: MapViewState, _ request: MapRequest) -> GeoPoint {
        let projection = map.viewport.projection(columns: request.columns, rows: request.rows)
        return MercatorPoint(x: projection.left + (Double(cell.column * 2) + 1) / projection.scale,
                             y: projection.top - (Double(cell.row * 4) + 2) / projection.scale).geographic
    }

    static func identified(_ state: inout AppState, session: Int, id: Int, _ hits: [IdentifyHit]) -> [Effect] {
        guard let map = state.map, map.session == session, map.identify?.id == id else { return [] }
        state.withMap { map in
            map.identify?.hits = hits.map(DisplayText.identifyHit)
            map.identify?.index = 0
        }
        return []
    }

    /// `Tab` with several hits: the next, round to the first.
    static func nextHit(_ state: inout AppState) -> [Effect] {
        guard var found = state.map?.identify, let hits = found.hits, hits.count > 1 else { return [] }
        found.index = (found.index + 1) % hits.count
        state.withMap { $0.identify = found }
        return []
    }
}

import Foundation
import MapRender
import MapSources
import MapbookCore

/// The main screen's overview pane drawn from the web map's basemap, by the map view's renderer,
/// when the basemap can be reached; until then, and offline, the pane draws the bundled outline.
extension AppModel {
    /// Draws the basemap for the overview pane's current size (once a drawing is under way, the
    /// next waits for it and uses the size then).
    func requestOverviewDraw() {
        guard state.phase == .loaded, state.network != .offline, overviewDrawing == nil,
              state.layout.overviewColumns > 0, state.layout.overviewRows > 0,
              let basemap = onlineBasemap else { return }
        let areas = state.areas.compactMap { area in area.extent.map { OverviewArea(title: "", extent: $0) } }
        guard let view = OverviewMap(geography: .empty, webMapExtent: state.webMapExtent, areas: areas, selected: nil).viewExtent
        else { return }
        let columns = state.layout.overviewColumns, rows = state.layout.overviewRows
        let request = MapRequest(viewport: MapViewport(fitting: view, columns: columns, rows: rows), columns: columns, rows: rows,
                                 mode: .braille, colors: state.layout.mapColors)
        guard state.overviewBasemap?.request != request else { return }
        let known = overviewLoader
        overviewDrawing = Task { [weak self] in
            let loader: TileLoader
            if let known {
                loader = known
            } else {
                // Not reachable (or no basemap there): the pane keeps the outline.
                guard let source = try? await Task.detached(operation: basemap.open).value else {
                    self?.overviewDrawing = nil
                    return
                }
                loader = TileLoader(source: source)
            }
            let image = await loader.render(request)
            self?.overviewDrawn(image, by: loader)
        }
    }

    private func overviewDrawn(_ image: MapImage, by loader: TileLoader) {
        overviewDrawing = nil
        overviewLoader = loader
        // A basemap that drew nothing (no tiles here) is no better than the outline.
        guard image.report.featuresDrawn > 0 else { return }
        state.overviewBasemap = image
        requestOverviewDraw()
    }

    /// Waits until the overview's basemap drawing, if any, has finished (tests).
    public func waitForOverview() async {
        while let drawing = overviewDrawing { await drawing.value }
    }
}

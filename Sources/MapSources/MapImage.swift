import Foundation
import MapRender
import MapbookCore
import TerminalCanvas

/// What to draw: a view, a size in cells, and how.
public struct MapRequest: Sendable, Equatable {
    public var viewport: MapViewport
    public var columns: Int
    public var rows: Int
    public var mode: MapMode
    public var hiddenLayers: Set<String>
    public var colors: Bool

    public init(viewport: MapViewport, columns: Int, rows: Int, mode: MapMode = .braille, hiddenLayers: Set<String> = [],
                colors: Bool = true) {
        self.viewport = viewport; self.columns = columns; self.rows = rows; self.mode = mode
        self.hiddenLayers = hiddenLayers; self.colors = colors
    }
}

/// A drawn map: its cells, what it was drawn for, and what could not be drawn.
public struct MapImage: Sendable {
    public var frame: Frame
    public var request: MapRequest
    public var report: MapDrawReport
    /// Sentences for the status bar; empty when everything drew.
    public var problems: [String]

    public init(frame: Frame, request: MapRequest, report: MapDrawReport = MapDrawReport(), problems: [String] = []) {
        self.frame = frame; self.request = request; self.report = report; self.problems = problems
    }
}

extension TileLoader {
    /// Loads the tiles and draws them. The drawing happens on the caller's task, outside the
    /// loader, so a long draw never holds up tile loading.
    public nonisolated func render(_ request: MapRequest) async -> MapImage {
        let loaded = await tiles(for: request.viewport, columns: request.columns, rows: request.rows)
        let scene = MapScene(viewport: request.viewport, mode: request.mode, style: source.style, tiles: loaded.tiles,
                             tileSize: source.tileSize, hiddenLayers: request.hiddenLayers, attribution: source.attribution,
                             colors: request.colors)
        var frame = Frame(width: request.columns, height: request.rows)
        let report = MapComposer.draw(scene, into: &frame, rect: frame.bounds)
        var problems = loaded.problems
        if report.damagedFeatures > 0 {
            problems.append("\(report.damagedFeatures) feature\(report.damagedFeatures == 1 ? "" : "s") with broken geometry left out.")
        }
        return MapImage(frame: frame, request: request, report: report, problems: problems)
    }
}

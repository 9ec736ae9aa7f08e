import Foundation
import MapRender
import MapbookCore
import TileFormats
import Geometry
import ArcGISModel

/// An operational layer the server draws for each view (a map service's `export`): asked for the
/// view's box at the map's pixel grid (a cell's width by half its height, the grid raster pictures
/// are drawn at), once the view has held still a moment; a newer view cancels the question before
/// it; the last few pictures are kept by view, and until the new one comes the last picture is
/// drawn where it belongs.
public actor ServiceImageLayer {
    /// The picture of a box, as the server drew it (PNG or JPEG bytes).
    public typealias Fetch = @Sendable (ImageView) async throws -> Data
    /// What lies at a point of a view.
    public typealias Identify = @Sendable (GeoPoint, ImageView) async throws -> [IdentifyHit]

    /// A box in Web Mercator metres and its size in pixels.
    public struct ImageView: Sendable, Hashable {
        public var left: Double, top: Double, right: Double, bottom: Double
        public var width: Int, height: Int
    }

    public nonisolated let title: String
    public nonisolated let opacity: Double
    public nonisolated let initiallyVisible: Bool
    public nonisolated let legend: [LegendEntry]
    public nonisolated let attribution: String?
    private let fetch: Fetch
    private let identifyAt: Identify?
    /// A picture kept on this device (a downloaded area's), drawn for every view instead of asking.
    private let keptPicture: PlacedImage?
    /// The pictures last drawn, the newest last.
    private var kept: [(view: ImageView, image: RasterImage)] = []
    private var asking: (view: ImageView, task: Task<RasterImage, any Error>)?
    private var generation = 0
    private var failure: String?
    private var failedAt: ContinuousClock.Instant?

    /// How long a view must hold still before it is asked for: panning asks once, at the end.
    private let settle: Duration
    static let keptPictures = 6

    public init(title: String, opacity: Double = 1, visible: Bool = true, legend: [LegendEntry] = [], attribution: String? = nil,
                settle: Duration = .milliseconds(120), fetch: @escaping Fetch, identify: Identify? = nil) {
        self.title = title; self.opacity = opacity; initiallyVisible = visible; self.legend = legend
        self.attribution = attribution; self.settle = settle; self.fetch = fetch; identifyAt = identify
        keptPicture = nil
    }

    /// A map service's picture of a box, kept on this device: drawn where it belongs for every view
    /// (overzoomed past its detail), without asking the server, which cannot be asked what lies there.
    public init(title: String, opacity: Double = 1, visible: Bool = true, kept image: RasterImage,
                box: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)) {
        self.title = title; self.opacity = opacity; initiallyVisible = visible; legend = []; attribution = nil; settle = .zero
        fetch = { _ in throw CancellationError() }
        identifyAt = nil
        keptPicture = PlacedImage(image: image, left: box.xmin, top: box.ymax, right: box.xmax, bottom: box.ymin, opacity: opacity)
    }

    /// The view of a request: its box and the pixel grid it is drawn at.
    public nonisolated static func view(_ viewport: MapViewport, columns: Int, rows: Int) -> ImageView {
        let projection = viewport.projection(columns: columns, rows: rows)
        return ImageView(left: projection.left, top: projection.top, right: projection.left + Double(columns * 2) / projection.scale,
                         bottom: projection.top - Double(rows * 4) / projection.scale, width: max(columns, 1), height: max(rows * 2, 1))
    }

    /// The picture to draw for a view (the newest kept one while the view's own is not there), and a
    /// sentence when the service failed.
    public func image(for viewport: MapViewport, columns: Int, rows: Int) async -> (image: PlacedImage?, problem: String?) {
        if let keptPicture { return (keptPicture, nil) }
        let view = Self.view(viewport, columns: columns, rows: rows)
        if let hit = kept.last(where: { $0.view == view }) { return (placed(hit), nil) }
        generation += 1
        let mine = generation
        try? await Task.sleep(for: settle)
        // A newer view came while this one settled: it is the one asked for.
        guard mine == generation, !Task.isCancelled else { return (kept.last.map(placed), failure) }
        if isResting { return (kept.last.map(placed), failure) }
        if let asking, asking.view != view { asking.task.cancel() }
        let fetch = fetch
        // The same view already being asked for (two drawings of it): wait for that answer.
        let task = (asking?.view == view ? asking?.task : nil) ?? Task { try RasterImage(decoding: try await fetch(view)) }
        asking = (view, task)
        do {
            let image = try await task.value
            if asking?.view == view { asking = nil }
            kept.removeAll { $0.view == view }
            kept.append((view, image))
            if kept.count > Self.keptPictures { kept.removeFirst() }
            failure = nil
            failedAt = nil
            return (placed((view, image)), nil)
        } catch {
            if asking?.view == view { asking = nil }
            // Superseded: the newer view's drawing shows the answer.
            guard !(error is CancellationError), !task.isCancelled else { return (kept.last.map(placed), failure) }
            failure = "\(TerminalText.sanitizedLine(title, maxLength: 60)) could not be drawn: \(error.userSentence)"
            failedAt = .now
            return (kept.last.map(placed), failure)
        }
    }

    /// The picture to draw at once (the view's own if kept, else the newest), and whether the
    /// view's own is still to be asked for.
    public func atHand(for viewport: MapViewport, columns: Int, rows: Int) -> (image: PlacedImage?, waits: Bool) {
        if let keptPicture { return (keptPicture, false) }
        let view = Self.view(viewport, columns: columns, rows: rows)
        if let hit = kept.last(where: { $0.view == view }) { return (placed(hit), false) }
        return (kept.last.map(placed), !isResting)
    }

    /// The service failed a moment ago: it is not asked again yet.
    private var isResting: Bool { failedAt.map { ContinuousClock.now - $0 < FeatureLayerLoader.retryAfterFailure } ?? false }

    /// What lies at a point of the view, as the service says; when it cannot say, a card saying why
    /// (the rest of identify's answers still come).
    public func identify(at point: GeoPoint, viewport: MapViewport, columns: Int, rows: Int) async -> [IdentifyHit] {
        guard let identifyAt else { return [] }
        do {
            return try await identifyAt(point, Self.view(viewport, columns: columns, rows: rows))
        } catch {
            let name = TerminalText.sanitizedLine(title, maxLength: 80)
            return [IdentifyHit(card: PopupCard(layer: name, title: "Not identified",
                                                rows: [], text: "\(name) could not be asked what lies here: \(error.userSentence)"),
                                geometry: nil)]
        }
    }

    private func placed(_ kept: (view: ImageView, image: RasterImage)) -> PlacedImage {
        PlacedImage(image: kept.image, left: kept.view.left, top: kept.view.top, right: kept.view.right, bottom: kept.view.bottom,
                    opacity: opacity)
    }
}

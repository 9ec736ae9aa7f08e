import Foundation
import MapRender
import MapbookCore
import ArcGISModel
import Geometry

/// An operational layer's features for the view. Offline, a stored copy: all its features, ready
/// once. Online, its service: queried for a view with a margin around it, kept while later views
/// stay inside what was asked for and near its scale, asked again when they leave.
public actor FeatureLayerLoader {
    /// Queries the service: the features meeting an extent, and whether there were more than sent.
    public typealias Query = @Sendable (GeoExtent) async throws -> (features: [LayerFeature], capped: Bool)

    public nonisolated let title: String
    public nonisolated let info: FeatureLayerInfo
    public nonisolated let opacity: Double
    /// Whether the web map shows it at first (the layer list can switch it).
    public nonisolated let initiallyVisible: Bool
    private let query: Query?
    private var prepared: PreparedFeatureLayer?
    /// What `prepared` covers, and the zoom it was asked for at.
    private var covered: (extent: GeoExtent, zoom: Double)?
    private var capped = false
    /// How many features a stored copy left out at its limit, when known.
    private var leftOut: Int?
    private var failure: String?
    /// When the service last failed: a drawing waits for the query, so a service that fails (or
    /// hangs until the stall timeout) is asked again only after `retryAfterFailure`.
    private var failedAt: ContinuousClock.Instant?
    static let retryAfterFailure: Duration = .seconds(30)

    /// The most features asked for at once from a service, for one view.
    public static let viewLimit = 5_000

    /// A stored copy: the features it holds; `capped` when the copy stopped at its limit.
    public init(title: String, info: FeatureLayerInfo, features: [LayerFeature], opacity: Double = 1, visible: Bool = true, capped: Bool = false,
                leftOut: Int? = nil) {
        let info = PictureMarkers.resolved(info)
        self.title = title; self.info = info; self.opacity = opacity; initiallyVisible = visible; query = nil
        prepared = PreparedFeatureLayer(info: info, features: features)
        self.capped = capped
        self.leftOut = leftOut
    }

    /// A service, queried as the view moves.
    public init(title: String, info: FeatureLayerInfo, opacity: Double = 1, visible: Bool = true, query: @escaping Query) {
        self.title = title; self.info = PictureMarkers.resolved(info); self.opacity = opacity; initiallyVisible = visible; self.query = query
    }

    /// The features to draw for a view (nil outside the layer's scale range, or before any arrived),
    /// and a sentence when something is wrong: the service failed, or it held features back.
    public func features(for viewport: MapViewport, columns: Int, rows: Int) async -> (layer: PreparedFeatureLayer?, problem: String?) {
        guard info.isVisible(atScale: viewport.scale) else { return (nil, nil) }
        guard let query else { return (prepared, capped ? Self.cappedSentence(title, stored: true, leftOut: leftOut) : nil) }
        let view = viewport.geographicExtent(columns: columns, rows: rows)
        if covers(view, zoom: viewport.zoom) { return (prepared, failure ?? (capped ? Self.cappedSentence(title, stored: false) : nil)) }
        if isResting { return (prepared, failure) }
        let w = view.xmax - view.xmin, h = view.ymax - view.ymin
        let asked = GeoExtent(xmin: max(view.xmin - w / 2, -180), ymin: max(view.ymin - h / 2, -85.06),
                              xmax: min(view.xmax + w / 2, 180), ymax: min(view.ymax + h / 2, 85.06))
        do {
            let result = try await query(asked)
            prepared = PreparedFeatureLayer(info: info, features: result.features)
            covered = (asked, viewport.zoom)
            capped = result.capped
            failure = nil
            failedAt = nil
        } catch {
            failure = "\(TerminalText.sanitizedLine(title, maxLength: 60)) could not be loaded: \(error.userSentence)"
            failedAt = .now
        }
        return (prepared, failure ?? (capped ? Self.cappedSentence(title, stored: false) : nil))
    }

    /// The features last loaded, to draw at once, and whether the view's are still to be asked for.
    public func atHand(for viewport: MapViewport, columns: Int, rows: Int) -> (layer: PreparedFeatureLayer?, waits: Bool) {
        guard info.isVisible(atScale: viewport.scale) else { return (nil, false) }
        guard query != nil else { return (prepared, false) }
        let view = viewport.geographicExtent(columns: columns, rows: rows)
        return (prepared, !covers(view, zoom: viewport.zoom) && !isResting)
    }

    /// The features loaded last hold `view` at about this zoom.
    private func covers(_ view: GeoExtent, zoom: Double) -> Bool {
        guard let covered else { return false }
        return covered.extent.contains(view) && abs(covered.zoom - zoom) < 2.5
    }

    /// The service failed a moment ago: it is not asked again yet.
    private var isResting: Bool { failedAt.map { ContinuousClock.now - $0 < Self.retryAfterFailure } ?? false }

    /// The features last drawn, for identifying.
    public var current: PreparedFeatureLayer? { prepared }

    /// All the layer's features when it is a stored copy (nil for a service, which holds only a view's).
    public var storedFeatures: [LayerFeature]? { query == nil ? prepared?.features : nil }

    /// A stored copy with its features changed by `change` (the user's edits laid over the area's
    /// data), as capped as this one; nil for a service's layer, which is not stored.
    public func edited(_ change: ([LayerFeature]) -> [LayerFeature]) -> FeatureLayerLoader? {
        guard query == nil, let features = prepared?.features else { return nil }
        return FeatureLayerLoader(title: title, info: info, features: change(features), opacity: opacity, visible: initiallyVisible, capped: capped,
                                  leftOut: leftOut)
    }

    static func cappedSentence(_ title: String, stored: Bool, leftOut: Int? = nil) -> String {
        let name = TerminalText.sanitizedLine(title, maxLength: 60)
        let missing = leftOut.map { "\(Format.grouped($0)) feature\($0 == 1 ? " is" : "s are") missing" } ?? "some features are missing"
        return stored ? "\(name): the copy on this device stopped at its limit; \(missing)."
                      : "\(name): more features than mapbook asks for at once here; zoom in to see them all."
    }
}

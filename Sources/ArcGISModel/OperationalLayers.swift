import MapbookCore

/// Where a map's operational layers come from: a downloaded area's copies when it has them, else
/// the web map's layers (bottom first, groups opened), from their services while `online`.
public struct OperationalLayers: Equatable, Sendable {
    public var area: ItemID?
    public var layers: [WebMapLayer]
    public var online: Bool

    public init(area: ItemID? = nil, layers: [WebMapLayer], online: Bool) { self.area = area; self.layers = layers; self.online = online }
}

import ArcGISModel
import Foundation
import Geodatabase
import Geometry
import MapbookCore

/// A mobile geodatabase's layers as operational layers, read from the file once: drawn, listed,
/// identified and given a legend as a feature service's are.
public enum GeodatabaseLayers {
    public struct Opened: Sendable {
        public var loaders: [FeatureLayerLoader]
        /// A line per layer not drawn, and why (listed in the layer list).
        public var notDrawn: [String] = []
        /// One sentence per layer that cannot be drawn, or drawn without some of its shapes.
        public var problems: [String]
        /// Where its features are.
        public var extent: GeoExtent?
    }

    /// The most features read from one layer: beyond it the layer is drawn capped, and says so.
    public static let featureLimit = 250_000

    /// The stored features one map draws, all its layers together: each layer is prepared for
    /// drawing as it opens, so a map naming one big table a hundred times must stop somewhere.
    public struct Budget: Sendable {
        public static let standard = 750_000
        public let mostFeatures: Int
        public private(set) var features = 0

        public init(mostFeatures: Int = Budget.standard) { self.mostFeatures = mostFeatures }

        /// Takes `count` features for `title`; the sentence why not, once the map holds its most.
        mutating func admit(_ count: Int, title: String) -> String? {
            guard features + count <= mostFeatures else {
                return "\(title) is not drawn: the map already draws \(Format.grouped(features)) features, and mapbook draws at most \(Format.grouped(mostFeatures)) at once."
            }
            features += count
            return nil
        }
    }

    public static func open(path: String) throws -> Opened {
        let gdb = try Geodatabase(path: path)
        var opened = Opened(loaders: [], problems: [], extent: nil)
        var budget = Budget()
        for layer in drawingOrder(gdb.layers) {
            let read = self.read(layer, from: gdb, title: layer.info.name, info: layer.info, budget: &budget)
            opened.problems += read.problems
            opened.notDrawn += read.notDrawn.map { [$0] } ?? []
            opened.extent = [opened.extent, read.extent].compactMap { $0 }.reduce(nil) { $0?.union($1) ?? $1 }
            if let loader = read.loader { opened.loaders.append(loader) }
        }
        if gdb.layers.isEmpty { opened.problems.append("The geodatabase holds no layer with shapes.") }
        return opened
    }

    /// One layer read whole into a stored copy, drawn as `info` says (the layer's own description, or
    /// a map's overrides of it); sentences for what could not be read.
    /// One layer as read: its loader, or the line that lists it as not drawn and why (the layer
    /// list shows it); sentences for what could not be read; where its features are.
    public struct Read {
        public var loader: FeatureLayerLoader?
        public var notDrawn: String?
        public var problems: [String]
        public var extent: GeoExtent?
    }

    public static func read(_ layer: GeodatabaseLayer, from gdb: Geodatabase, title: String, info: FeatureLayerInfo,
                            opacity: Double = 1, visible: Bool = true, budget: inout Budget) -> Read {
        let title = TerminalText.sanitizedLine(title, maxLength: 80)
        func notDrawn(_ why: String, _ sentence: String) -> Read { Read(notDrawn: "\(title) · not drawn: \(why)", problems: [sentence]) }
        if let reason = layer.cannotBeDrawn { return notDrawn(reason, "\(title) cannot be drawn: \(reason).") }
        let read: GeodatabaseFeatures
        do { read = try gdb.features(of: layer, limit: featureLimit) } catch {
            let reason = (error as? GeodatabaseError)?.sentence ?? error.userSentence
            return notDrawn(reason, "\(title) could not be read: \(reason)")
        }
        if let refused = budget.admit(read.features.count, title: title) { return notDrawn("the map draws as many features as it can", refused) }
        let extent = read.features.compactMap(\.extent).reduce(nil) { $0?.union($1) ?? $1 }
        let loader = FeatureLayerLoader(title: title, info: info, features: read.features, opacity: opacity, visible: visible, capped: read.capped)
        let stopped = read.stoppedBy.map { sentence in
            [read.features.isEmpty ? "\(title) is not drawn: \(sentence)"
                                   : "\(title): \(sentence) The \(Format.grouped(read.features.count)) features read before are drawn."]
        } ?? []
        return Read(loader: loader, problems: stopped + sentences(title, read.skipped), extent: extent)
    }

    /// One table drawn as a map's layer says (a mobile map's, a web map's): the layer's renderer,
    /// labels and popup over the table's own description, its title, opacity and visibility.
    public static func read(_ table: GeodatabaseLayer, from gdb: Geodatabase, as layer: WebMapLayer,
                            visible: Bool, budget: inout Budget) -> Read {
        let info = table.serviceItem.flatMap {
            FeatureLayerInfo(json: $0, overrides: layer.layerDefinition, popupInfo: layer.popupInfo, title: layer.title)
        } ?? table.info
        return read(table, from: gdb, title: layer.title ?? table.info.name, info: info, opacity: layer.opacity, visible: visible, budget: &budget)
    }

    /// Bottom first, as operational layers are: polygons under lines under points, and within a
    /// kind the service's order read as a table of contents (layer 0 on top).
    public static func drawingOrder(_ layers: [GeodatabaseLayer]) -> [GeodatabaseLayer] {
        func rank(_ type: FeatureGeometryType) -> Int { type == .polygon ? 0 : type == .polyline ? 1 : 2 }
        return layers.enumerated().sorted { a, b in
            (rank(a.element.info.geometryType), -a.offset) < (rank(b.element.info.geometryType), -b.offset)
        }.map(\.element)
    }

    /// What was left out of a layer, in sentences.
    static func sentences(_ title: String, _ read: SkippedShapes) -> [String] {
        var out: [String] = []
        if read.damaged > 0 {
            out.append("\(title): \(read.damaged) \(read.damaged == 1 ? "shape is" : "shapes are") damaged and not drawn (\(read.firstDamage ?? "")).")
        }
        if read.undrawable > 0 {
            out.append("\(title): \(read.undrawable) \(read.undrawable == 1 ? "shape" : "shapes") cannot be drawn (\(read.firstUndrawable ?? "")).")
        }
        return out
    }
}

import ArcGISModel
import Foundation
import TileFormats

/// Picture markers (`esriPMS`, CIM picture markers) drawn in their image's colour: a terminal cell
/// cannot show the picture, but it can show the colour most of its opaque pixels have. A picture
/// with no opaque pixel is a marker that shows nothing, and is drawn as nothing. An image that does
/// not decode (or is too large) leaves the marker in the default colour.
enum PictureMarkers {
    /// The layer's description with every picture marker's colour taken from its image.
    static func resolved(_ info: FeatureLayerInfo) -> FeatureLayerInfo {
        var info = info
        info.renderer.defaultSymbol = info.renderer.defaultSymbol.map(resolved)
        info.renderer.classes = info.renderer.classes.map { var c = $0; c.symbol = resolved(c.symbol); return c }
        return info
    }

    static func resolved(_ symbol: FeatureSymbol) -> FeatureSymbol {
        guard case .marker(style: "picture") = symbol.kind, symbol.color == nil, let data = symbol.picture,
              let image = try? RasterImage(decoding: data) else { return symbol }
        var resolved = symbol
        resolved.color = dominantColor(image) ?? SymbolColor(r: 0, g: 0, b: 0, a: 0)
        return resolved
    }

    /// The average of the commonest colour (in 16 levels a channel) among the pixels at least half
    /// opaque; nil when there are none.
    static func dominantColor(_ image: RasterImage) -> SymbolColor? {
        var counts = [Int](repeating: 0, count: 4096), sums = [(Int, Int, Int)](repeating: (0, 0, 0), count: 4096)
        let rgba = image.rgba
        for at in stride(from: 0, to: rgba.count - 3, by: 4) where rgba[at + 3] >= 128 {
            let (r, g, b) = (Int(rgba[at]), Int(rgba[at + 1]), Int(rgba[at + 2]))
            let bin = (r >> 4) << 8 | (g >> 4) << 4 | b >> 4
            counts[bin] += 1
            sums[bin] = (sums[bin].0 + r, sums[bin].1 + g, sums[bin].2 + b)
        }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return nil }
        let n = counts[best]
        return SymbolColor(r: UInt8(sums[best].0 / n), g: UInt8(sums[best].1 / n), b: UInt8(sums[best].2 / n))
    }
}

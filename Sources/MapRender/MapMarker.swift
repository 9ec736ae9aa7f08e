import Foundation
import MapbookCore
import TerminalCanvas
import Geometry

/// A marked point on a map (a searched place, a pin): a glyph where it is and its name beside it,
/// over the picture's backgrounds; in reverse video without colour.
public enum MapMarker {
    /// Draws the marker if the point is in `rect`; returns whether it was.
    @discardableResult
    public static func draw(_ point: GeoPoint, label: String, glyph: Character, projection: MapProjection, in rect: Rect,
                            into frame: inout Frame, color: PaletteIndex?) -> Bool {
        let dot = projection.dot(MercatorPoint(point))
        guard dot.x.isFinite, dot.y.isFinite, abs(dot.x) < 1e6, abs(dot.y) < 1e6 else { return false }
        let x = rect.x + Int((dot.x / 2).rounded(.down)), y = rect.y + Int((dot.y / 4).rounded(.down))
        guard rect.contains(x: x, y: y) else { return false }
        let text = String(glyph) + (label.isEmpty ? "" : " " + DisplayWidth.truncated(label, to: 40))
        if let color {
            frame.putOver(text, x: x, y: y, style: CellStyle(foreground: color, bold: true), limit: rect.maxX)
        } else {
            frame.put(text, x: x, y: y, style: CellStyle(bold: true, reverse: true), limit: rect.maxX)
        }
        return true
    }
}

import ArcGISModel
import Foundation
import Geometry
@testable import MapRender
@testable import MapSources
import MapbookCore
import Testing

/// Picture markers are drawn in their image's colour, a transparent one not at all, and an image
/// that is not one (or is too large) leaves the marker in the default colour.
@Suite struct PictureMarkerTests {
    /// Four by four pixels, twelve of them opaque red (200, 30, 30), four transparent white.
    static let red = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAYAAACp8Z5+AAAAHklEQVR4nGP4//8/wwk5uf8wjMIBSTIgc+AqkLUBAM3MJBnedppZAAAAAElFTkSuQmCC"
    /// Two by two pixels, all transparent.
    static let clear = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEUlEQVR4nGP4z8DAAMIMMAYAKegD/QE6Y34AAAAASUVORK5CYII="
    /// A PNG header claiming 10,000 × 10,000 pixels.
    static let huge = "iVBORw0KGgoAAAANSUhEUgAAJxAAACcQCAYAAAC6TmInAAAADElEQVR4nGNgoD0AAABkAAGGZDw1AAAAAElFTkSuQmCC"

    static func layer(_ symbol: String) -> FeatureLayerInfo {
        FeatureLayerInfo(json: try! JSONValue(parsing: Data(#"""
            {"name":"Hydrants","geometryType":"esriGeometryPoint","fields":[],
             "drawingInfo":{"renderer":{"type":"simple","symbol":\#(symbol)}}}
            """#.utf8)))!
    }

    @Test func aPictureIsDrawnInItsCommonestOpaqueColour() {
        let classic = PictureMarkers.resolved(Self.layer(#"{"type":"esriPMS","imageData":"\#(Self.red)","contentType":"image/png","height":12}"#))
        #expect(classic.renderer.classes.first?.symbol.color == SymbolColor(r: 200, g: 30, b: 30))
        let cim = PictureMarkers.resolved(Self.layer(#"""
            {"type":"CIMPointSymbol","symbolLayers":[{"type":"CIMPictureMarker","enable":true,"size":10,"url":"data:image/png;base64,\#(Self.red)"}]}
            """#))
        #expect(cim.renderer.classes.first?.symbol.color == SymbolColor(r: 200, g: 30, b: 30))
        #expect(MapLegend.entries(for: classic).first.map { "\($0)" }?.isEmpty == false)
    }

    @Test func aTransparentPictureDrawsNothingAndABadOneTheDefault() {
        let clear = PictureMarkers.resolved(Self.layer(#"{"type":"esriPMS","imageData":"\#(Self.clear)"}"#))
        #expect(clear.renderer.classes.first?.symbol.color?.a == 0)
        #expect(SymbolPaint(clear.renderer.classes[0].symbol).isInvisible)
        for bad in [Self.huge, "bm90IGFuIGltYWdl", String(repeating: "A", count: 2 << 20)] {
            let symbol = PictureMarkers.resolved(Self.layer(#"{"type":"esriPMS","imageData":"\#(bad)"}"#)).renderer.classes.first?.symbol
            #expect(symbol?.color == nil && symbol.map { SymbolPaint($0).isInvisible } == false)
        }
    }
}

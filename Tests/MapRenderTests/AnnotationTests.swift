import ArcGISModel
import Foundation
import Geodatabase
import Geometry
import MapRender
@testable import MapSources
import MapbookCore
import Testing

/// A Web Mercator geodatabase of our own with an annotation class (text placed by its author in a
/// box) and a layer of picture markers: the text is drawn where it was placed, through the label
/// pass (the box is not drawn), escape codes in it inert; the markers in their picture's colour.
@Suite struct AnnotationTests {
    static let red = PictureMarkerTests.red

    static func file(annotations: [(text: String, at: GeoPoint)], hydrants: [GeoPoint]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("annotation-\(UUID()).geodatabase").path
        let writer = try GeodatabaseWriter(path: path)
        try writer.addLayer(id: 0, table: "StreetsAnno", info: try JSONValue(parsing: Data(#"""
            {"name":"StreetsAnno","type":"Annotation Layer","geometryType":"esriGeometryPolygon",
             "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"TextString","type":"esriFieldTypeString"},
                       {"name":"Angle","type":"esriFieldTypeDouble"}]}
            """#.utf8)))
        for (index, annotation) in annotations.enumerated() {
            let p = WebMercator.projected(longitude: annotation.at.longitude, latitude: annotation.at.latitude)
            let box = [(p.x - 300, p.y - 60), (p.x + 300, p.y - 60), (p.x + 300, p.y + 60), (p.x - 300, p.y + 60), (p.x - 300, p.y - 60)]
            try writer.insert(into: "StreetsAnno", attributes: ["OBJECTID": .number(Double(index + 1)), "TextString": .string(annotation.text)],
                              shape: .polygon([box.map { (x: $0.0, y: $0.1) }]))
        }
        try writer.addLayer(id: 1, table: "Hydrants", info: try JSONValue(parsing: Data(#"""
            {"name":"Hydrants","geometryType":"esriGeometryPoint","fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],
             "drawingInfo":{"renderer":{"type":"simple","symbol":{"type":"esriPMS","imageData":"\#(Self.red)","contentType":"image/png","height":12}}}}
            """#.utf8)))
        for (index, point) in hydrants.enumerated() {
            let p = WebMercator.projected(longitude: point.longitude, latitude: point.latitude)
            try writer.insert(into: "Hydrants", attributes: ["OBJECTID": .number(Double(index + 1))], shape: .point(x: p.x, y: p.y))
        }
        try writer.finish()
        return path
    }

    @Test func annotationIsDrawnAsPlacedTextAndPicturesInTheirColour() async throws {
        let portland = GeoPoint(longitude: -70.2553, latitude: 43.6615)
        let path = try Self.file(annotations: [("CONGRESS ST", portland), ("\u{1B}]0;pwned\u{7}EXCHANGE ST", GeoPoint(longitude: -70.2530, latitude: 43.6605))],
                                 hydrants: [GeoPoint(longitude: -70.2570, latitude: 43.6600)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let opened = try GeodatabaseLayers.open(path: path)
        #expect(opened.problems.isEmpty && opened.notDrawn.isEmpty, "\(opened.problems)")
        let annotation = try #require(opened.loaders.first { $0.title == "StreetsAnno" })
        #expect(annotation.info.labeling?.parts == [.field("TextString")])
        let hydrants = try #require(opened.loaders.first { $0.title == "Hydrants" })
        #expect(hydrants.info.renderer.classes.first?.symbol.color == SymbolColor(r: 200, g: 30, b: 30))
        var stack = MapStack.worldOutline(problems: [])
        stack.features = opened.loaders
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(portland), zoom: 15), columns: 100, rows: 30, mode: .braille, colors: true)
        let image = await stack.render(request)
        let text = image.frame.text
        #expect(text.contains("CONGRESS ST") && text.contains("EXCHANGE ST"), "the annotation's text, where it was placed:\n\(text)")
        #expect(!text.contains("pwned") || !text.unicodeScalars.contains("\u{1B}"), "inert")
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(text.contains("●"), "the hydrant")
    }
}

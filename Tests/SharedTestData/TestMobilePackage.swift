import Foundation
import TileFormats

/// A mobile map package made for tests from the shared data's parts: Esri's `usa.geodatabase` and
/// the states `.tpk`, with a `package.info` and a `p13/mobile_map.mmap` (two bookmarks, a WMS
/// layer mapbook does not draw) laid out as ArcGIS Pro lays out its packages. Zipped (stored, as
/// real `.mmpk` files are) or unpacked into a folder, as Esri's SDKs leave downloaded packages.
public enum TestMobilePackage {
    public static let info = """
        {"title": "USA mapbook", "snippet": "States, highways and cities", "type": "Mobile Map Package",
         "maps": ["USA"], "created": 1700000000000, "modified": 1700000500000,
         "thumbnail": "data:image/png;base64,iVBORw0KGgo="}
        """

    public static let map = """
        {"map": {"version": "2.10", "spatialReference": {"wkid": 102100},
          "baseMap": {"title": "States", "baseMapLayers": [
            {"id": "b", "title": "States basemap", "layerType": "ArcGISTiledMapServiceLayer", "path": "file:./states.tpk"}]},
          "operationalLayers": [
            {"id": "s", "title": "States", "layerType": "ArcGISFeatureLayer", "path": "file:./usa.geodatabase?itemId=2", "opacity": 0.5},
            {"id": "h", "title": "Highways", "layerType": "ArcGISFeatureLayer", "path": "file:./usa.geodatabase?itemId=1"},
            {"id": "c", "title": "Cities", "layerType": "ArcGISFeatureLayer", "path": "file:./usa.geodatabase?itemId=0",
             "popupInfo": {"title": "City: {NAME}", "fieldInfos": [{"fieldName": "NAME", "label": "Name", "visible": true},
                                                                  {"fieldName": "ST", "label": "State", "visible": true}]}},
            {"id": "w", "title": "Weather", "layerType": "WMS", "url": "https://example.com/wms"}],
          "bookmarks": [
            {"name": "New England", "extent": {"xmin": -8200000, "ymin": 5000000, "xmax": -7400000, "ymax": 6000000, "spatialReference": {"wkid": 102100}}},
            {"name": "Texas", "extent": {"xmin": -11800000, "ymin": 2900000, "xmax": -10300000, "ymax": 4400000, "spatialReference": {"wkid": 102100}}}]},
         "item": {"title": "USA", "extent": [[-125, 24], [-66, 50]]}}
        """

    public static var available: Bool {
        FileManager.default.fileExists(atPath: SharedData.url("features/usa.geodatabase").path)
            && FileManager.default.fileExists(atPath: SharedData.url("raster/tpk/states_filled.tpk").path)
    }

    /// The package's files by name; `replacing` swaps or adds files (nil data removes one).
    public static func files(replacing changes: [String: Data?] = [:]) throws -> [String: Data] {
        var files: [String: Data] = [
            "package.info": Data(info.utf8),
            "p13/mobile_map.mmap": Data(map.utf8),
            "p13/usa.geodatabase": try Data(contentsOf: SharedData.url("features/usa.geodatabase")),
            "p13/states.tpk": try Data(contentsOf: SharedData.url("raster/tpk/states_filled.tpk")),
            "esriinfo/iteminfo.xml": Data("<ESRI_ItemInformation/>".utf8),
        ]
        for (name, data) in changes { files[name] = data }
        return files
    }

    /// Writes `files` as a stored zip at `path`.
    public static func zip(_ files: [String: Data], to path: String) throws {
        let writer = try ZipWriter(path: path)
        for name in files.keys.sorted() { try writer.add(name, files[name]!) }
        try writer.finish()
    }

    /// Writes `files` into the folder `path`.
    public static func unpack(_ files: [String: Data], into path: String) throws {
        for (name, data) in files {
            let url = URL(fileURLWithPath: path).appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }
}

import UserFiles
import MapRender
import MapbookCore
import LibraryModel
import ArcGISModel
import Geometry

/// Work `update` asks for: values, performed by the runtime off the UI thread, whose results come
/// back as events. Nothing in the model performs them itself.
public enum Effect: Equatable, Sendable {
    /// In a few seconds, say that the notice numbered so has been shown long enough.
    case expireNotice(Int)
    /// Stop what a request started: the model has forgotten it (`Requests.replaced`), so its
    /// answer must not come.
    case cancel(RequestID)
    /// Put text on the terminal's clipboard (the front end's way: OSC 52 on the full screen).
    case copy(String)

    // Each feature's work, one case per slice (Features/): `Runtime.perform` hands each to the
    // feature's handler.
    case catalog(CatalogFeature.Effect)
    case downloads(DownloadsFeature.Effect)
    case map(MapFeature.Effect)
    case maps(MapsFeature.Effect)
    case packages(PackagesFeature.Effect)
    case signIn(SignInFeature.Effect)
    case pins(PinsFeature.Effect)
    case search(SearchFeature.Effect)
    case directions(DirectionsFeature.Effect)
    case newArea(NewAreaFeature.Effect)
    case edits(EditsFeature.Effect)
}

/// Where a map's tiles come from.
public enum MapSourceChoice: Equatable, Sendable {
    /// A downloaded area's package, offline.
    case package(area: ItemID, DownloadRecord.Package)
    /// A basemap's tile services, online.
    case basemap(Basemap)
    /// The source the runtime was started with (`mapbook open FILE`).
    case given
    /// The bundled world outline: what a web map's layers are drawn over when its basemap cannot be
    /// (another projection, a layer type mapbook does not draw).
    case outline
}

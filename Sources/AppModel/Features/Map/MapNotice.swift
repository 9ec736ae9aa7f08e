import MapRender

extension MapFeature {
    /// What the map view says in the status bar (`Notice.map`), worded here.
    public enum Notice: Equatable, Sendable {
        case noBookmarks
        /// `B` in a map opened from a file: it has no portal to choose from.
        case noBasemapChoice
        case noLayers
        case basemapChosen(String)
        case drawingMode(MapMode)
        /// A bookmark gone to; `outside`: the downloaded area whose map it lies outside of, which has
        /// nothing to draw there.
        case bookmark(String, outside: String? = nil)
        /// `Y`: the centre's position put on the clipboard; `E`: the view's extent.
        case copiedPosition(String)
        case copiedExtent(String)
        /// `f`: watching starts, from `source` ("gpsd at 127.0.0.1:2947"); there is no position
        /// yet (what the source says); centred on it (how good it is); following it, or not.
        case locating(source: String)
        case noPosition(String)
        /// Where this device is, and how good the fix is.
        case position(String, String)
        case centredOnPosition(String)
        case followingPosition, stoppedFollowing
        /// `T`: recording started; a track ended with its points and length (its id, for
        /// `mapbook tracks export`), or with none (nothing kept).
        case recordingTrack
        case trackKept(id: String, points: Int, length: String)
        case trackEmpty

        /// The sentence, naming the keys of `keys` where it names one.
        func sentence(keys: [KeyBinding]) -> String {
            switch self {
            case .noBookmarks: "This map has no bookmarks."
            case .noBasemapChoice: "A map opened from a file has no other basemaps."
            case .noLayers: "No layers to list yet."
            case .basemapChosen(let title): "Drawing on \(title)."
            case .drawingMode(let mode): "Drawing in \(mode.rawValue)"
            case .bookmark(let name, nil): "Bookmark: \(name)"
            case .bookmark(let name, let area?): "Bookmark: \(name), outside \(area): this map holds the area's layers and basemap only."
            case .copiedPosition(let position): "Copied \(position) (LON,LAT) to the clipboard."
            case .copiedExtent(let extent): "Copied \(extent) (W,S,E,N) to the clipboard."
            case .locating(let source): "Looking for this device's position from \(source)…"
            case .noPosition(let why): "No position yet: \(why)."
            case .position(let place, let how): "Your position: \(place), \(how)."
            case .centredOnPosition(let how):
                "Centred on this device's position (\(how)); \(KeyMap.key(for: .map(.locate), keys) ?? "its key") again follows it."
            case .followingPosition: "Following this device's position; a pan stops following."
            case .stoppedFollowing: "Stopped following this device's position."
            case .recordingTrack: "Recording a track; \(KeyMap.key(for: .map(.recordTrack), keys) ?? "its key") again ends it."
            case .trackKept(let id, let points, let length):
                "Track kept: \(points) point\(points == 1 ? "" : "s"), \(length) (mapbook tracks export \(id))."
            case .trackEmpty: "No point was recorded; no track was kept."
            }
        }

        /// All of it is news about what was just done: it gives the status bar back to the key hints.
        var fades: Bool { true }
    }
}

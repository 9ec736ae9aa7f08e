import ArcGISModel

/// Areas of your own: the estimate, the servers' jobs, the download that follows.
public enum NewAreaFeature {
    /// What comes back from this feature's work (`Event.newArea`).
    public enum Action: Sendable {
        /// The estimate for new-area request `request`.
        case areaEstimated(request: RequestID, AreaEstimate)
        /// The servers are preparing an area of your own: the area (without packages yet) and how far.
        case areaPreparing(MapArea, label: String)
        /// Every job has its package: the area to download.
        case areaPrepared(MapArea)
        /// It could not be made (the area's id once it had one), one sentence.
        case areaNotMade(ItemID?, sentence: String)
    }

    /// The work this feature asks for (`Effect.newArea`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// What an area of your own would weigh (→ `areaEstimated`).
        case estimateArea(request: RequestID, NewAreaOrder)
        /// Make it: the servers' jobs, then the download (→ `areaPreparing`…, `areaPrepared` or `areaNotMade`).
        case makeArea(NewAreaOrder)
        /// Follow again the exports an earlier run left under way (once the portal answers).
        case resumeAreaExports
    }
}

extension App {
    /// `NewAreaFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: NewAreaFeature.Action) -> [Effect] {
        switch action {
        case .areaEstimated(let request, let estimate):
            return areaEstimated(&state, request: request, estimate)
        case .areaPreparing(let area, let label):
            return areaPreparing(&state, area, label: label)
        case .areaPrepared(let area):
            return areaPrepared(&state, area)
        case .areaNotMade(let id, let sentence):
            return areaNotMade(&state, id, sentence: sentence)
        }
    }
}

extension NewAreaFeature {
    /// What making an area says in the status bar (`Notice.newArea`); news that fades.
    public enum Notice: Equatable, Sendable {
        /// `N` with no portal to ask.
        case needsPortal
        case making(String)

        var sentence: String {
            switch self {
            case .needsPortal: "Making an area of your own needs the web map's services, and they cannot be reached now."
            case .making(let name): "Making \(name): the servers are asked to prepare it; its row shows how far they are."
            }
        }
    }
}

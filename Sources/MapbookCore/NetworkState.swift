/// Whether the portal can be reached, as the network monitor last saw it.
public enum NetworkState: Equatable, Sendable {
    case unknown
    /// The portal answers (perhaps with an error for one request).
    case online
    /// No network: no route, names do not resolve, nothing answers in time.
    case offline
    /// The network is there but the portal is not: connections refused, reset or closed early.
    case portalNotAnswering

    /// The portal cannot be used: only what is on this device works.
    public var isCutOff: Bool { self == .offline || self == .portalNotAnswering }
}

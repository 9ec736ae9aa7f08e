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

/// Why something could not be had from the portal (the web map, a route, a search): one sentence,
/// and what it says about the network —
/// `.offline`, `.portalNotAnswering`, or `.online` when the portal answered with an error.
public struct LoadFailure: Error, Equatable, Sendable {
    public var sentence: String
    public var network: NetworkState
    public var host: String
    /// The portal wants a (new) sign-in to answer.
    public var needsSignIn: Bool

    public init(sentence: String, network: NetworkState, host: String, needsSignIn: Bool = false) {
        self.sentence = sentence; self.network = network; self.host = host; self.needsSignIn = needsSignIn
    }
}

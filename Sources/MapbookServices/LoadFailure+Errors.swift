import ArcGISPortal
import HTTP
import MapbookCore

extension LoadFailure {
    /// Asked of the portal before the client was ready.
    public static let notConnected = LoadFailure(sentence: "Not connected to the portal yet.", network: .unknown, host: "")

    /// The one mapping of a failure to what the model is told: its sentence, what it says of the
    /// network (an `HTTPError`'s reachability; anything else means the server answered), and
    /// whether a (new) sign-in would help.
    public init(_ error: any Error, host: String) {
        let needsSignIn = error is SignInError || (error as? PortalError).map { [.tokenRequired, .invalidToken].contains($0.kind) } ?? false
        self.init(sentence: error.userSentence, network: (error as? HTTPError)?.networkState ?? .online, host: host,
                  needsSignIn: needsSignIn)
    }
}

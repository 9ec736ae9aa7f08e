/// Signing in to the portal from the browser.
public enum SignInFeature {
    /// What comes back from this feature's work (`Event.signIn`).
    public enum Action: Sendable {
        /// Signed in from the browser, as this user; or why not.
        case signedIn(request: RequestID, username: String)
        case signInFailed(request: RequestID, String)
    }

    /// The work this feature asks for (`Effect.signIn`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Sign in to the portal with a username and password (→ `signedIn` or `signInFailed`).
        case signIn(request: RequestID, username: String, password: String)
    }
}

extension App {
    /// `SignInFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: SignInFeature.Action) -> [Effect] {
        switch action {
        case .signedIn(let request, let username):
            return signedIn(&state, request: request, username: username)
        case .signInFailed(let request, let sentence):
            return signInFailed(&state, request: request, sentence)
        }
    }
}

import AppModel
import ArcGISPortal
import EventLoop
import Foundation
import MapbookCore
import MapbookServices

/// The browser's sign-in form: the username and password handed to the command's way of signing
/// in (which shares the client's session with the download queue and keeps the sign-in).
@UIActor
final class SignInHandler {
    private let connection: PortalConnection
    private let signIn: Runtime.SignIn?
    private let send: EventSink
    private let tasks: TaskTracker

    init(connection: PortalConnection, signIn: Runtime.SignIn?, send: EventSink, tasks: TaskTracker) {
        self.connection = connection; self.signIn = signIn; self.send = send; self.tasks = tasks
    }

    func signIn(request: RequestID, username: String, password: String) {
        guard let client = connection.client, let signIn else {
            send(.signIn(.signInFailed(request: request, connection.client == nil ? LoadFailure.notConnected.sentence
                                                        : "This portal is signed in to with mapbook auth login.")))
            return
        }
        tasks.track { [send] in
            do {
                send(.signIn(.signedIn(request: request, username: try await signIn(client, username, password))))
            } catch {
                send(.signIn(.signInFailed(request: request, error.userSentence)))
            }
        }
    }
}

extension SignInHandler {
    /// Does the work `SignInFeature` asks for.
    func perform(_ effect: SignInFeature.Effect) {
        switch effect {
        case .signIn(let request, let username, let password): signIn(request: request, username: username, password: password)
        }
    }
}

import Foundation
import ArcGISModel
import MapbookCore

/// The browser's sign-in: a username and a password (the password never shown), the field with
/// the cursor, whether the portal is being asked, and why it refused.
public struct SignInForm: Equatable, Sendable {
    public enum Field: Int, CaseIterable, Sendable { case username, password }

    public var username = ""
    public var password = ""
    public var focus: Field = .username
    /// The sign-in asked for, while the portal is being asked.
    public var signingIn: RequestID?
    public var isSigningIn: Bool { signingIn != nil }
    public var problem: String?
    /// The Maps card's tab the form was opened from (`S` there), to go back to.
    public var returnsToMaps: WebMapsTab?

    public init(username: String = "") { self.username = username }
}

/// `S` (offered when the portal wants a sign-in): the form, then the portal's `generateToken`
/// through the runtime, which keeps the sign-in for the next start; on success the web map loads
/// again, signed in.
extension App {
    static func startSignIn(_ state: inout AppState) -> [Effect] {
        guard state.portal.isConnected || state.catalog.phase != .loading else { return [] }
        state.overlay = .signIn(SignInForm(username: state.portal.signedInAs ?? ""))
        return []
    }

    static func editSignIn(_ state: inout AppState, _ edit: FormEdit) -> [Effect] {
        guard case .signIn(var form)? = state.overlay, !form.isSigningIn else { return [] }
        switch edit {
        case .type, .deleteBackward:
            switch form.focus {
            case .username: FormText.apply(edit, to: &form.username)
            case .password: FormText.apply(edit, to: &form.password)
            }
            form.username = String(form.username.prefix(128))
            form.password = String(form.password.prefix(256))
        case .nextField, .previousField:
            form.focus = form.focus == .username ? .password : .username
        case .adjust: break
        case .cancel:
            state.overlay = nil
            return form.returnsToMaps.map { showMaps(&state, on: $0) } ?? []
        case .save:
            let username = form.username.trimmingCharacters(in: .whitespaces)
            guard !username.isEmpty, !form.password.isEmpty else {
                form.problem = "A username and a password are needed."
                form.focus = username.isEmpty ? .username : .password
                state.overlay = .signIn(form)
                return []
            }
            let request = state.requests.mint()
            form.signingIn = request
            form.problem = nil
            state.overlay = .signIn(form)
            return [.signIn(.signIn(request: request, username: username, password: form.password))]
        }
        form.problem = nil
        state.overlay = .signIn(form)
        return []
    }

    static func signedIn(_ state: inout AppState, request: RequestID, username: String) -> [Effect] {
        state.requests.answered(request)
        let name = TerminalText.sanitizedLine(username, maxLength: 128)
        var backToMaps: WebMapsTab?
        if case .signIn(let form)? = state.overlay {
            state.overlay = nil
            // Signed in from the Maps card ("sign in to see your content"): that content next.
            backToMaps = form.returnsToMaps
        }
        state.portal.signedInAs = name
        state.portal.signInWanted = false
        let effects = reload(&state)
        // Said over "reloading": who is signed in is what the user waits to read.
        state.notice = .signedIn(user: name, host: state.portal.host)
        return effects + (backToMaps.map { showMaps(&state, on: $0) } ?? [])
    }

    static func signInFailed(_ state: inout AppState, request: RequestID, _ sentence: String) -> [Effect] {
        state.requests.answered(request)
        let clean = TerminalText.sanitizedLine(sentence, maxLength: 400)
        guard case .signIn(var form)? = state.overlay else {
            state.notice = .problem(clean)
            return []
        }
        form.signingIn = nil
        form.password = ""
        form.focus = .password
        form.problem = clean
        state.overlay = .signIn(form)
        return []
    }
}

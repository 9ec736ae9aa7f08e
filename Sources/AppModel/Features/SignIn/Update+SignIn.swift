import Foundation
import ArcGISModel
import MapbookCore

/// The browser's sign-in: a username and a password (the password never shown), the field with
/// the cursor, whether the portal is being asked, and why it refused.
public struct SignInForm: Equatable, Sendable {
    public enum Field: Int, CaseIterable, Sendable { case username, password }

    public var fields: Form
    /// The sign-in asked for, while the portal is being asked: the form waits meanwhile.
    public var signingIn: RequestID? { didSet { fields.isBusy = signingIn != nil } }
    public var isSigningIn: Bool { signingIn != nil }
    /// The Maps card's tab the form was opened from (`S` there), to go back to.
    public var returnsToMaps: WebMapsTab?

    public init(username: String = "") {
        fields = Form([Form.Field("Username", .text(limit: 128), text: username), Form.Field("Password", .secret(limit: 256))])
    }

    public var username: String { fields[Field.username.rawValue].text }
    public var password: String { fields[Field.password.rawValue].text }
    public var focus: Field { Field(rawValue: fields.focus) ?? .username }
    public var problem: String? { fields.problem }
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
        guard case .signIn(var form)? = state.overlay else { return [] }
        switch form.fields.apply(edit) {
        case .changed, .unchanged:
            state.overlay = .signIn(form)
            return []
        case .cancel:
            state.overlay = nil
            return form.returnsToMaps.map { showMaps(&state, on: $0) } ?? []
        case .save:
            let username = form.username.trimmingCharacters(in: .whitespaces)
            guard !username.isEmpty, !form.password.isEmpty else {
                form.fields.refuse("A username and a password are needed.", at: (username.isEmpty ? SignInForm.Field.username : .password).rawValue)
                state.overlay = .signIn(form)
                return []
            }
            let request = state.requests.mint()
            form.signingIn = request
            form.fields.problem = nil
            state.overlay = .signIn(form)
            return [.signIn(.signIn(request: request, username: username, password: form.password))]
        }
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
        form.fields[SignInForm.Field.password.rawValue].text = ""
        form.fields.refuse(clean, at: SignInForm.Field.password.rawValue)
        state.overlay = .signIn(form)
        return []
    }
}

import Foundation
import MapbookCore
import Testing
@testable import AppModel

/// The browser's sign-in: offered when the portal wants one, a form whose password is never kept
/// after a refusal, and a reload once signed in.
@Suite("update: signing in")
struct SignInFormTests {
    static func refused() -> AppState {
        var state = AppState(portalHost: "portal.example.com", webMapID: Fixture.webMapID)
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        _ = App.update(&state, .catalog(.connected(host: "portal.example.com")))
        _ = App.update(&state, .catalog(.webMapFailed(LoadFailure(sentence: "portal.example.com requires signing in for this.", network: .online,
                                                         host: "portal.example.com", needsSignIn: true))))
        return state
    }

    @Test func theFormSignsInAndTheWebMapLoadsAgain() {
        var state = Self.refused()
        #expect(state.portal.signInWanted && state.catalog.phase == .failed("portal.example.com requires signing in for this."))
        _ = Fixture.keys(&state, .character("S"))
        guard case .signIn? = state.overlay else { Issue.record("no form"); return }
        // Keys type: q and S are letters here.
        for character in "alex" { _ = App.update(&state, .terminal(.key(.character(character)))) }
        _ = Fixture.keys(&state, .tab)
        for character in "qS3cret" { _ = App.update(&state, .terminal(.key(.character(character)))) }
        let asked = Fixture.keys(&state, .enter)
        guard case .signIn(.signIn(let request, _, _))? = asked.first else { Issue.record("\(asked)"); return }
        #expect(asked == [.signIn(.signIn(request: request, username: "alex", password: "qS3cret"))])
        #expect(state.requests.pending == [request] && !state.isSettled, "a script waits for the sign-in")
        _ = App.update(&state, .signIn(.signInFailed(request: request, "portal.example.com did not accept that username and password.")))
        #expect(state.requests.isEmpty)
        guard case .signIn(let refused)? = state.overlay else { Issue.record("form closed"); return }
        #expect(refused.password.isEmpty && refused.focus == .password && refused.username == "alex" && !refused.isSigningIn)
        #expect(refused.problem == "portal.example.com did not accept that username and password.")
        for character in "right" { _ = App.update(&state, .terminal(.key(.character(character)))) }
        guard case .signIn(.signIn(let again, _, _))? = Fixture.keys(&state, .enter).first else { Issue.record("not asked again"); return }
        let effects = App.update(&state, .signIn(.signedIn(request: again, username: "alex")))
        #expect(state.overlay == nil && state.portal.signedInAs == "alex" && !state.portal.signInWanted)
        #expect(effects.contains(.catalog(.loadWebMap)))
    }

    @Test func anEmptyFieldIsSaidAndEscLeaves() {
        var state = Self.refused()
        _ = Fixture.keys(&state, .character("S"))
        #expect(Fixture.keys(&state, .enter).isEmpty)
        guard case .signIn(let form)? = state.overlay else { Issue.record("form closed"); return }
        #expect(form.problem == "A username and a password are needed." && form.focus == .username)
        _ = Fixture.keys(&state, .escape)
        #expect(state.overlay == nil)
    }
}

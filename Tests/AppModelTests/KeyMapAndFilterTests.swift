import AppModel
import Testing
import UserFiles

@Suite struct FuzzyMatchTests {
    @Test func matchesInOrderIgnoringCase() {
        #expect(FuzzyMatch.match("gp", in: "Greater Portland")?.positions == [0, 8])
        #expect(FuzzyMatch.match("PORT", in: "Greater Portland") != nil)
        #expect(FuzzyMatch.match("pg", in: "Greater Portland") == nil)
        #expect(FuzzyMatch.match("", in: "anything")?.positions == [])
        #expect(FuzzyMatch.match("x", in: "") == nil)
    }

    @Test func wordStartsAndRunsScoreHigher() {
        let wordStarts = FuzzyMatch.match("bsp", in: "Baxter State Park")!.score
        let scattered = FuzzyMatch.match("bsp", in: "Absorbs parks")!.score
        #expect(wordStarts > scattered)
        let run = FuzzyMatch.match("bang", in: "Bangor")!.score
        let spread = FuzzyMatch.match("bang", in: "Boston and Greater")!.score
        #expect(run > spread)
    }
}

@Suite struct KeyMapTests {
    @Test func everyKeyboardIntentHasAKeyAndNoKeyMeansTwoThings() {
        let keyboardIntents: [Intent] = [.move(.up), .move(.down), .move(.left), .move(.right), .move(.pageUp), .move(.pageDown), .move(.top), .move(.bottom),
                                         .open, .back, .quit, .list(.startFilter), .refresh, .list(.switchFocus), .toggleHelp,
                                         .area(.download), .area(.downloadAll), .area(.cancel), .area(.remove), .area(.update), .list(.openMap), .list(.showDetails),
                                         .map(.zoomIn), .map(.zoomOut), .map(.home), .map(.showBookmarks), .map(.showLayers), .map(.cycleMode), .map(.toggle)]
        for intent in keyboardIntents {
            #expect(KeyMap.bindings.contains { $0.intent == intent && !$0.keys.isEmpty }, "no key for \(intent)")
        }
        // Typing a filter and answering a question have keys of their own; the map view's keys are
        // looked up before the ones that work everywhere (so `c` there cycles the drawing mode).
        let listKeys = KeyMap.bindings.filter { $0.context == .everywhere || $0.context == .list }.flatMap(\.keys)
        #expect(Set(listKeys).count == listKeys.count, "a key is bound twice outside the map")
        let mapKeys = KeyMap.bindings.filter { $0.context == .map }.flatMap(\.keys)
        #expect(Set(mapKeys).count == mapKeys.count, "a key is bound twice in the map")
        #expect(KeyMap.intent(for: .character("c")) == .area(.cancel))
        #expect(KeyMap.intent(for: .character("c"), in: .map) == .map(.cycleMode))
        #expect(KeyMap.intent(for: .character("l"), in: .map) == .move(.right))
        #expect(KeyMap.intent(for: .character("L"), in: .map) == .map(.showLayers))
        #expect(KeyMap.intent(for: .character("q"), in: .map) == .quit)
    }

    /// Typing a filter and answering a question have keys of their own, in the same table.
    @Test func filterAndConfirmKeysAreInTheTable() {
        #expect(KeyMap.intent(for: .character("q"), in: .filter) == .filter(.type("q")))
        #expect(KeyMap.intent(for: .backspace, in: .filter) == .filter(.deleteBackward))
        #expect(KeyMap.intent(for: .enter, in: .filter) == .filter(.keep))
        #expect(KeyMap.intent(for: .escape, in: .filter) == .filter(.clear))
        #expect(KeyMap.intent(for: .down, in: .filter) == .move(.down), "arrows still move while typing")
        #expect(KeyMap.intent(for: .character("y"), in: .confirm) == .confirm(true))
        #expect(KeyMap.intent(for: .enter, in: .confirm) == .confirm(true))
        #expect(KeyMap.intent(for: .character("N"), in: .confirm) == .confirm(false))
        #expect(KeyMap.intent(for: .escape, in: .confirm) == .confirm(false))
        #expect(KeyMap.intent(for: .character("j"), in: .confirm) == nil, "nothing else while asking")
        for context in [KeyContext.filter, .confirm] {
            for binding in KeyMap.bindings where binding.context == context && binding.intent != nil {
                for key in binding.keys { #expect(KeyMap.intent(for: key, in: context) == binding.intent) }
            }
        }
    }

    /// The config's action names live on the key table's rows: each names one intent, so a key given
    /// in the config can only ever mean what the table says.
    @Test func everyConfigActionNamesRowsOfOneIntent() {
        for action in KeyAction.allCases {
            let rows = KeyMap.bindings.filter { $0.action == action }
            #expect(!rows.isEmpty, "no row of the key table is \(action.rawValue)")
            #expect(Set(rows.compactMap(\.intent)).count == 1, "\(action.rawValue) names rows of different intents")
        }
        #expect(KeyMap.bindings.first { $0.action == .drawing }?.intent == .map(.cycleMode))
    }

    @Test func theDocumentedKeysDoWhatTheIssueSays() {
        #expect(KeyMap.intent(for: .character("j")) == .move(.down))
        #expect(KeyMap.intent(for: .character("k")) == .move(.up))
        #expect(KeyMap.intent(for: .pageDown) == .move(.pageDown))
        #expect(KeyMap.intent(for: .character("g")) == .move(.top))
        #expect(KeyMap.intent(for: .character("G")) == .move(.bottom))
        #expect(KeyMap.intent(for: .enter) == .open)
        #expect(KeyMap.intent(for: .escape) == .back)
        #expect(KeyMap.intent(for: .character("q")) == .quit)
        #expect(KeyMap.intent(for: .character("/")) == .list(.startFilter))
        #expect(KeyMap.intent(for: .character("r")) == .refresh)
        #expect(KeyMap.intent(for: .tab) == .list(.switchFocus))
        #expect(KeyMap.intent(for: .character("?")) == .toggleHelp)
        #expect(KeyMap.intent(for: .character("z")) == nil)
    }

    @Test func tabIsTheNextTravelModeInTheDirectionsPanelAndTheNextHitElsewhereOnTheMap() {
        #expect(KeyMap.intent(for: .tab, in: .directions) == .map(.nextTravelMode))
        #expect(KeyMap.intent(for: .tab, in: .map) == .map(.nextHit))
        // What the panel does not take works as on the map: panning, zooming.
        #expect(KeyMap.intent(for: .left, in: .directions) == .move(.left))
        #expect(KeyMap.intent(for: .character("+"), in: .directions) == KeyMap.intent(for: .character("+"), in: .map))
    }

    @Test func theDirectionsPanelsHintsAreItsKeysAsBound() {
        let bound = KeyMap.bindings(overriding: [.directions: "T"])
        #expect(KeyMap.hints(in: .directions, bindings: bound) == ["↑↓ steps", "Enter all", "T add a stop", "Tab travel mode", "[ ] earlier/later", "Y copy", "Esc close"])
        #expect(KeyMap.intent(for: .character("T"), in: .directions, bindings: bound) == .map(.directions))
        #expect(KeyMap.intent(for: .character("t"), in: .directions, bindings: bound) == nil)
    }

    /// Each list over the map shows the hints of the rows it takes, from the table, with the keys
    /// the config gave; what a list does not take works as on the map.
    @Test func aListOverTheMapShowsItsOwnRowsAsBound() {
        #expect(KeyMap.hints(in: .mapList, panel: .layers) == ["↑↓ choose", "Space show/hide", "Esc close"])
        #expect(KeyMap.hints(in: .mapList, panel: .bookmarks) == ["↑↓ choose", "Enter go", "Esc close"])
        #expect(KeyMap.hints(in: .mapList, panel: .pins) == ["↑↓ choose", "Enter go", "e edit", "x delete", "o open link", "Esc close"])
        let bound = KeyMap.bindings(overriding: [.remove: "X"])
        #expect(KeyMap.hints(in: .mapList, panel: .pins, bindings: bound).contains("X delete"))
        #expect(KeyMap.intent(for: .character("X"), in: .mapList, bindings: bound) == .area(.remove))
        #expect(KeyMap.intent(for: .character("x"), in: .mapList, bindings: bound) == nil)
        #expect(KeyMap.intent(for: .character(" "), in: .mapList) == .map(.toggle))
        #expect(KeyMap.intent(for: .character(" "), in: .map) == nil, "Space is the layer list's")
        #expect(KeyMap.intent(for: .character("+"), in: .mapList) == .map(.zoomIn))
        #expect(KeyMap.intent(for: .enter, in: .map) == .open, "Enter still lays the ruler's point")
        #expect(KeyMap.hints(in: .help) == ["↑↓ scroll", "Esc close"])
        #expect(KeyMap.intent(for: .escape, in: .help) == .back && KeyMap.intent(for: .character("q"), in: .help) == .quit)
    }
}

/// Keys the config gives to other actions: the action takes its key alone, the key leaves what had
/// it where both apply, help and the hints show the new key, the pan keys give way too.
@Suite("Key overrides")
struct KeyOverrideTests {
    @Test func anOverriddenKeyMovesAndWhatHadItLosesIt() {
        let bindings = KeyMap.bindings(overriding: [.download: "D", .layers: "l"])
        #expect(KeyMap.intent(for: .character("D"), bindings: bindings) == .area(.download))
        #expect(KeyMap.intent(for: .character("d"), bindings: bindings) == nil, "d is no longer download")
        #expect(!bindings.contains { $0.intent == .area(.downloadAll) && !$0.keys.isEmpty }, "D was download-all's")
        #expect(KeyMap.hints(bindings: bindings).contains("D download"))
        // In the map, l now lists layers instead of panning; h still pans, and l still moves right in the list.
        #expect(KeyMap.intent(for: .character("l"), in: .map, bindings: bindings) == .map(.showLayers))
        #expect(KeyMap.intent(for: .character("h"), in: .map, bindings: bindings) == .move(.left))
        #expect(KeyMap.intent(for: .right, in: .map, bindings: bindings) == .move(.right))
        #expect(KeyMap.intent(for: .character("l"), in: .list, bindings: bindings) == .move(.right))
        // Typing is untouched: in a filter D is a letter.
        #expect(KeyMap.intent(for: .character("D"), in: .filter, bindings: bindings) == .filter(.type("D")))
        let help = HelpDocument.lines(width: 70, bindings: bindings).map { $0.map(\.text).joined() }
        #expect(help.contains { $0.hasPrefix("D ") && $0.contains("Download the selected area") })
    }

    /// Help is the whole table: each context's heading once, in order, and under it every row of
    /// that context with its keys and what they do.
    @Test func helpHoldsEveryRowUnderItsContext() {
        let lines = HelpDocument.lines(width: 400).map { $0.map(\.text).joined().trimmingCharacters(in: .whitespaces) }
        var position = 0
        for context in KeyContext.allCases {
            let rows = KeyMap.bindings.filter { $0.context == context }
            guard !rows.isEmpty else { continue }
            guard let heading = lines[position...].firstIndex(of: context.rawValue) else {
                Issue.record("no heading \(context.rawValue) after line \(position)"); return
            }
            position = heading
            for row in rows {
                guard let line = lines[position...].firstIndex(where: { $0.hasPrefix(row.label) && $0.hasSuffix(row.summary) }) else {
                    Issue.record("\(context.rawValue): no line for \(row.label) \(row.summary)"); return
                }
                position = line
            }
        }
        #expect(position > 100, "help reached the last context's rows")
    }

    @Test func theStateUsesItsOwnKeys() {
        var state = Fixture.loaded()
        state.preferences.keyBindings = KeyMap.bindings(overriding: [.quit: "Q"])
        _ = Fixture.keys(&state, .character("q"))
        #expect(!state.handoff.isQuitting)
        _ = Fixture.keys(&state, .character("Q"))
        #expect(state.handoff.isQuitting)
        #expect(KeyMap.hints(for: .failed("x"), bindings: state.preferences.keyBindings) == ["r try now", "? help", "Q quit"])
    }

    @Test func sentencesNameTheKeysAsSet() {
        var state = Fixture.loaded()
        state.preferences.keyBindings = KeyMap.bindings(overriding: [.refresh: "R", .pin: "!"])
        state.library.transfers[Fixture.acadia] = .failed("The link dropped.")
        let row = state.rows.firstIndex(of: .area(0))!
        #expect(StatusText.line(state.rows[row], state: state).map(\.text).joined().contains("R to retry · Enter for why"))
        // The plain mode words the same line with its own commands for the row, never keys.
        let plain = StatusText.line(state.rows[row], state: state, wording: .commands(number: row + 1)).plainText
        #expect(plain == "Failed — download \(row + 1) to retry · details \(row + 1) for why", "\(plain)")
        // Inside the details, which say why below, the line does not send there.
        #expect(StatusText.line(state.rows[row], state: state, wording: .details).plainText == "Failed — R to retry")
        state.library.transfers[Fixture.acadia] = .queued
        #expect(StatusText.line(state.rows[row], state: state, wording: .commands(number: 3)).plainText.hasSuffix("· cancel 3 to cancel"))
        #expect(StatusText.line(state.rows[row], state: state).plainText.hasSuffix("· c to cancel"))
        state.notice = .pins(.noPins)
        #expect(state.message == "No pins yet: ! drops one at the centre of the map.")
    }
}

/// An area's key on the web map's row says which row it wants instead of doing nothing.
@Suite("update: area keys on the web map's row")
struct AreaKeysOnTheWebMapRowTests {
    @Test func removeAndDownloadSayToSelectAnArea() {
        var state = Fixture.loaded()
        #expect(state.selectedRow == .webMap)
        _ = Fixture.keys(&state, .character("x"))
        #expect(state.overlay == nil && state.message == "Select a map area to remove: this row is the web map.")
        _ = Fixture.keys(&state, .character("d"))
        #expect(state.message == "Select a map area to download: this row is the web map.")
    }
}

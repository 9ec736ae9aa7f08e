import Testing
@testable import AppModel

@Suite("One rule for moving through lists")
struct ListCursorTests {
    @Test func movesStayInsideTheList() {
        #expect(ListCursor.moved(0, by: .up, count: 5, page: 3) == 0)
        #expect(ListCursor.moved(4, by: .down, count: 5, page: 3) == 4)
        #expect(ListCursor.moved(1, by: .pageDown, count: 5, page: 3) == 4)
        #expect(ListCursor.moved(4, by: .pageUp, count: 5, page: 3) == 1)
        #expect(ListCursor.moved(2, by: .bottom, count: 5, page: 3) == 4)
        #expect(ListCursor.moved(2, by: .top, count: 5, page: 3) == 0)
        #expect(ListCursor.moved(2, by: .scroll(-9), count: 5, page: 3) == 0)
        #expect(ListCursor.moved(0, by: .down, count: 0, page: 3) == 0, "an empty list keeps row 0")
        #expect(ListCursor.moved(2, by: .left, count: 5, page: 3) == 2, "sideways is not through the list")
    }

    @Test func theWindowMovesOnlyAsFarAsItMust() {
        // Selection below the window: the window's last row becomes the selection.
        #expect(ListCursor.top(keeping: 7, from: 0, count: 20, visible: 5) == 3)
        // Selection inside: the window stays.
        #expect(ListCursor.top(keeping: 5, from: 3, count: 20, visible: 5) == 3)
        // Selection above: the window starts at it.
        #expect(ListCursor.top(keeping: 1, from: 3, count: 20, visible: 5) == 1)
        // Never empty rows below the end, and never a negative top.
        #expect(ListCursor.top(keeping: 19, from: 18, count: 20, visible: 5) == 15)
        #expect(ListCursor.top(keeping: 2, from: 9, count: 3, visible: 5) == 0)
    }

    @Test(arguments: 0..<200)
    func theSelectionIsAlwaysInView(seed: Int) {
        // A small linear congruential generator: the same 200 walks every run.
        var state = UInt64(seed) &+ 1
        func next() -> UInt64 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return state >> 33 }
        let count = Int(next() % 40), visible = Int(next() % 12) + 1
        var selection = 0, top = 0
        let moves: [Move] = [.up, .down, .pageUp, .pageDown, .top, .bottom, .scroll(3), .scroll(-7)]
        for _ in 0..<50 {
            selection = ListCursor.moved(selection, by: moves[Int(next() % UInt64(moves.count))], count: count, page: visible)
            top = ListCursor.top(keeping: selection, from: top, count: count, visible: visible)
            #expect(selection >= 0 && selection < max(count, 1))
            #expect(top <= selection && selection < top + visible)
            #expect(top == 0 || top + visible <= count)
        }
    }
}

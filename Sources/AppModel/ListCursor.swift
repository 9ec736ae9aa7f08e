/// How a selection moves through a list and which rows are in view: the one rule for the areas
/// list, the lists and tables over the map, the Maps card and the documents' scrolling (a document
/// is a list of lines whose "selection" is its first line shown).
public enum ListCursor {
    /// Where `move` takes `selection` in a list of `count` rows, `page` rows a page (left and right
    /// leave it where it is).
    public static func moved(_ selection: Int, by move: Move, count: Int, page: Int) -> Int {
        let target = switch move {
        case .up: selection - 1
        case .down: selection + 1
        case .pageUp: selection - max(page, 1)
        case .pageDown: selection + max(page, 1)
        case .top: 0
        case .bottom: count - 1
        case .scroll(let rows): selection + rows
        case .left, .right: selection
        }
        return clamped(target, count: count)
    }

    /// `row` kept within a list of `count` rows (0 for an empty one).
    private static func clamped(_ row: Int, count: Int) -> Int { min(max(row, 0), max(count - 1, 0)) }

    /// The first row to show so that `selection` is in a window of `visible` rows: `top` moves only
    /// as far as it must, and never leaves empty rows below the list's end.
    public static func top(keeping selection: Int, from top: Int = 0, count: Int, visible: Int) -> Int {
        let visible = max(visible, 1)
        var top = min(top, selection)
        if selection >= top + visible { top = selection - visible + 1 }
        return max(min(top, count - visible), 0)
    }
}

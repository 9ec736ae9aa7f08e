import AppModel

/// An SGR (mode 1006) mouse report, `ESC [ < button ; column ; row M` (or `m` for a release), as
/// terminals send it when asked: decoded here when ncurses does not (its terminal description
/// asks only for the old reports, which cannot say a column past 223 and which some terminals no
/// longer send once SGR reports were asked for).
enum SGRMouseReport {
    /// The longest report body read: three numbers and two semicolons.
    static let longestBody = 16

    /// The event a report's body (`"64;10;5"`) and final character (`M` or `m`) stand for, or nil
    /// for one mapbook has no use for (another button, a modifier held) or that is not a report.
    static func event(body: String, final: Character) -> MouseEvent? {
        let numbers = body.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 3, let button = numbers[0], let column = numbers[1], let row = numbers[2],
              (0...4095).contains(button), (1...10_000).contains(column), (1...10_000).contains(row),
              final == "M" || final == "m" else { return nil }
        let at = CellPoint(x: column - 1, y: row - 1)
        // Shift, Meta and Control (4, 8, 16) are not used: the report is taken as without them.
        let code = button & ~(4 | 8 | 16)
        switch code {
        case 64: return .wheel(rows: -1, at: at)
        case 65: return .wheel(rows: 1, at: at)
        case 0: return final == "M" ? .press(at) : .release(at)
        case 32: return .drag(at)  // motion with the first button held
        default: return nil
        }
    }
}

/// A terminal's answers to what mapbook asked it at the start (the kitty graphics query, the
/// device attributes, a cell's size, the background's colour, the cursor's place) that come after
/// mapbook stopped waiting for them — a slow link, a loaded machine: told apart from keys and
/// dropped whole, so an answer's ESC is not taken for the Escape key (which closes a map) nor its
/// letters for commands.
enum TerminalReplies {
    /// What an ESC the keypad did not match begins.
    enum AfterEscape: Equatable {
        /// A sequence no key sends (a reply, or a key mapbook does not know): nothing to act on.
        case sequence
        /// The Escape key, and the character typed after it, if any.
        case escape(then: UInt32?)
        /// A focus report (mode 1004, asked for under tmux): `CSI I` the focus gained, `CSI O` lost.
        case focus(gained: Bool)
    }

    /// The most characters a reply is read for: a background colour's is about 30.
    static let longest = 512

    /// What follows an ESC, read from `next` (nil: nothing more has come): an APC (`ESC _`, kitty's
    /// answers) or OSC (`ESC ]`, the background colour) up to its terminator (`ESC \` or BEL); a
    /// CSI (`ESC [`: device attributes `?…c`, a size `…t`, a cursor place `…R`, or a key ncurses
    /// does not know) up to its final byte; anything else is the Escape key.
    static func afterEscape(_ next: () -> UInt32?) -> AfterEscape {
        guard let first = next() else { return .escape(then: nil) }
        switch first {
        case 0x5F, 0x5D:  // _ ]
            var previous: UInt32 = 0
            for _ in 0..<longest {
                guard let c = next() else { break }
                if c == 0x07 || (previous == 0x1B && c == 0x5C) { break }
                previous = c
            }
            return .sequence
        case 0x5B:  // [
            for count in 0..<longest {
                guard let c = next() else { break }
                guard (0x20...0x3F).contains(c) else {
                    if count == 0, c == 0x49 || c == 0x4F { return .focus(gained: c == 0x49) }  // I O
                    break
                }
            }
            return .sequence
        default:
            return .escape(then: first)
        }
    }
}

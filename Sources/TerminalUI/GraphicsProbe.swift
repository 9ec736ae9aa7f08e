import AppRuntime
import CTerminal
import Foundation
import MapbookCore
import PixelRender
import UserFiles

/// Whether the terminal shows pictures, and which way: asked of the terminal itself before the
/// screen is set up — the kitty graphics query, then primary device attributes (every terminal
/// answers those, so their answer ends the wait), and of one that says it shows sixel, whether it
/// draws one — with `TERM_PROGRAM` and `TERM` as hints only, within a short limit; and its
/// background's colour, for the `auto` theme. Under tmux (which answers for itself), characters
/// unless a way is chosen by name; then pictures pass through it when it says it lets them
/// (`TmuxPassthrough`), else characters with one sentence.
enum GraphicsProbe {
    /// What the terminal answered.
    struct Answers: Equatable {
        var kitty = false
        /// Primary device attributes list 4: sixel graphics.
        var sixel = false
        /// The device attributes came back: the terminal has said all it will.
        var attributes = false
        /// `CSI 16 t`: a cell's size in pixels.
        var cell: (width: Int, height: Int)?
        /// The test sixel moved the cursor down (`CSI row ; column R` past the first row): it was
        /// drawn. Nil until the cursor's place came back.
        var sixelDrawn: Bool?
        /// `OSC 11`: the terminal's background colour, each channel 0…1.
        var background: (red: Double, green: Double, blue: Double)?

        /// Whether the background is light (its luminance past half), when the terminal said.
        var lightBackground: Bool? {
            background.map { 0.2126 * $0.red + 0.7152 * $0.green + 0.0722 * $0.blue > 0.5 }
        }

        static func == (a: Answers, b: Answers) -> Bool {
            a.kitty == b.kitty && a.sixel == b.sixel && a.attributes == b.attributes && a.cell?.width == b.cell?.width && a.cell?.height == b.cell?.height
                && a.sixelDrawn == b.sixelDrawn && a.lightBackground == b.lightBackground
        }

        /// Reads what the terminal sent back: `ESC _ G i=31;OK ESC \`, `CSI 6 ; h ; w t`,
        /// `CSI ? … c` and `CSI row ; column R`, in any order, among anything else (which is ignored).
        init(parsing bytes: [UInt8]) {
            let text = String(decoding: bytes, as: UTF8.self)
            kitty = text.contains("\u{1B}_Gi=31;OK")
            background = Self.background(in: text)
            var rest = Substring(text)
            while let start = rest.range(of: "\u{1B}[") {
                let body = rest[start.upperBound...]
                guard let end = body.firstIndex(where: { $0.isLetter }) else { break }
                let parameters = body[..<end]
                switch body[end] {
                case "c" where parameters.hasPrefix("?"):
                    attributes = true
                    sixel = parameters.dropFirst().split(separator: ";").contains("4")
                case "t":
                    let numbers = parameters.split(separator: ";").compactMap { Int($0) }
                    if numbers.count == 3, numbers[0] == 6, (4...256).contains(numbers[1]), (2...128).contains(numbers[2]) {
                        cell = (numbers[2], numbers[1])
                    }
                case "R":
                    let numbers = parameters.split(separator: ";").compactMap { Int($0) }
                    if numbers.count == 2, numbers[0] >= 1 { sixelDrawn = numbers[0] > 1 }
                default: break
                }
                rest = body[body.index(after: end)...]
            }
        }

        init() {}

        /// `ESC ] 11 ; rgb:R/G/B` (each channel one to four hex digits) ended by ST or BEL.
        private static func background(in text: String) -> (red: Double, green: Double, blue: Double)? {
            guard let start = text.range(of: "\u{1B}]11;rgb:") else { return nil }
            let body = text[start.upperBound...].prefix { $0.isHexDigit || $0 == "/" }
            let channels = body.split(separator: "/", omittingEmptySubsequences: false)
            guard channels.count == 3, channels.allSatisfy({ (1...4).contains($0.count) }) else { return nil }
            let values = channels.compactMap { channel in UInt32(channel, radix: 16).map { Double($0) / Double((1 << (4 * channel.count)) - 1) } }
            return values.count == 3 ? (values[0], values[1], values[2]) : nil
        }
    }

    /// Whether the terminal's background is light: its answer, else `COLORFGBG` (`fg;bg`, set by
    /// rxvt and Konsole: a background of 7 or 15 is light); nil when nothing says.
    static func lightBackground(_ answers: Answers?, environment: [String: String]) -> Bool? {
        if let light = answers?.lightBackground { return light }
        guard let last = environment["COLORFGBG"]?.split(separator: ";").last, let background = Int(last) else { return nil }
        return background == 7 || background == 15
    }

    /// What the terminal is asked: its background colour, the kitty query (a 1×1 picture it is
    /// asked only to check), the cell size, then the device attributes.
    static let query = Array("\u{1B}]11;?\u{1B}\\\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[16t\u{1B}[c".utf8)

    /// Asked of a terminal that says it shows sixel (some say so and draw nothing): on the
    /// alternate screen, from its first row, a sixel picture 600 pixels tall with no pixel set
    /// (nothing shows), then where the cursor is. A terminal that drew it moved the cursor down
    /// past the picture; one that did not left it on the first row.
    static let sixelCheck = Array(("\u{1B}[?1049h\u{1B}[1;1H\u{1B}P0;1;0q\"1;1;1;600" + String(repeating: "?-", count: 100)
                                   + "\u{1B}\\\u{1B}[6n\u{1B}[?1049l").utf8)

    /// The way `choice` names, when it names one (not `auto`, nor a way in characters).
    static func named(_ choice: GraphicsMode) -> GraphicsProtocol? {
        switch choice {
        case .kitty: .kitty
        case .sixel: .sixel
        case .iterm: .iterm
        default: nil
        }
    }

    /// The way to show pictures, and the cell size, for `choice` on this terminal; nil (with the
    /// sentence why, when the user asked for pictures by name) when the map is drawn in characters.
    /// `tmux`: what tmux said of the pane, under tmux.
    static func decide(_ choice: GraphicsMode, environment: [String: String], ascii: Bool, answers: Answers?,
                       windowCell: (width: Int, height: Int)?, tmux: TmuxPassthrough.Answer? = nil)
        -> (pictures: (GraphicsProtocol, cell: (width: Int, height: Int))?, problem: String?) {
        let named = named(choice)
        guard choice == .auto || named != nil, !ascii else { return (nil, nil) }
        if environment["TMUX"] != nil {
            guard named != nil else { return (nil, nil) }
            guard let tmux else {
                return (nil, "tmux could not be asked whether it lets pictures through, so the map is drawn in characters.")
            }
            guard tmux.allowed else {
                return (nil, "tmux does not let pictures through (set -g allow-passthrough on in tmux.conf), so the map is drawn in characters.")
            }
        }
        let chosen: GraphicsProtocol?
        if let named {
            chosen = named
        } else if answers?.kitty == true {
            chosen = .kitty
        } else if answers?.sixel == true {
            guard answers?.sixelDrawn == true else {
                return (nil, "The terminal says it shows sixel pictures but did not draw one, so the map is drawn in characters.")
            }
            chosen = .sixel
        } else if environment["TERM_PROGRAM"] == "iTerm.app" || environment["LC_TERMINAL"] == "iTerm2" {
            chosen = .iterm
        } else {
            chosen = nil
        }
        guard let chosen else { return (nil, nil) }
        guard let cell = windowCell ?? answers?.cell else {
            return (nil, "The terminal did not say how many pixels a cell is, so the map is drawn in characters.")
        }
        return ((chosen, cell), nil)
    }

    /// Asks the terminal on `input`/`output` (raw, echo off, restored after) and waits up to
    /// `limit` for the device attributes: a terminal that answers slowly or never costs that, once.
    /// One that says it shows sixel (and not kitty's way) is then asked to draw one, when it may
    /// show `pictures`, and waited for up to `limit` again for where the cursor went.
    static func ask(input: Int32, output: Int32, limit: Duration = .milliseconds(400), pictures: Bool = true) -> Answers? {
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { return nil }
        defer { tcsetattr(input, TCSANOW, &saved) }
        guard var received = exchange(query, input: input, output: output, limit: limit, until: { $0.attributes }) else { return nil }
        let first = Answers(parsing: received)
        if pictures, first.sixel, !first.kitty {
            received += exchange(sixelCheck, input: input, output: output, limit: limit, until: { $0.sixelDrawn != nil }) ?? []
        }
        return Answers(parsing: received)
    }

    /// Writes `question` and reads the answer until `until` holds of it, `limit` passes or 4 KiB came.
    private static func exchange(_ question: [UInt8], input: Int32, output: Int32, limit: Duration, until: (Answers) -> Bool) -> [UInt8]? {
        let written = question.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
        guard written == question.count else { return nil }
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 512)
        while ContinuousClock.now < deadline, received.count < 4_096 {
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(clamping: left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000)
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, max(milliseconds, 1)) > 0 else { continue }
            let count = read(input, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer[0..<count]
            if until(Answers(parsing: received)) { break }
        }
        return received
    }

    /// A cell's size from the kernel's window size in pixels (`TIOCGWINSZ`), when the terminal fills it in.
    static func windowCell(_ descriptor: Int32) -> (width: Int, height: Int)? {
        var rows: Int32 = 0, columns: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        guard mb_terminal_pixels(descriptor, &rows, &columns, &width, &height) == 0, rows > 0, columns > 0, width > 0, height > 0 else { return nil }
        let cell = (width: Int(width / columns), height: Int(height / rows))
        return (4...256).contains(cell.width) && (4...512).contains(cell.height) ? cell : nil
    }
}

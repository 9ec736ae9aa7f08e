import Foundation
import Testing
@testable import TerminalUI

/// Pictures through tmux: what tmux says of the pane, and the picture wrapped for its pass-through
/// at the pane's cell on the terminal's screen.
@Suite struct TmuxPassthroughTests {
    /// What tmux passes on: the wrapped bytes without the wrapper, each doubled ESC one again.
    static func unwrapped(_ bytes: [UInt8]) -> [[UInt8]] {
        var sequences: [[UInt8]] = [], index = 0
        let opening = Array("\u{1B}Ptmux;".utf8)
        while index < bytes.count {
            guard Array(bytes[index..<min(index + opening.count, bytes.count)]) == opening else { return sequences + [Array(bytes[index...])] }
            index += opening.count
            var inner: [UInt8] = []
            while index + 1 < bytes.count {
                if bytes[index] == 0x1B, bytes[index + 1] == 0x1B { inner.append(0x1B); index += 2; continue }
                if bytes[index] == 0x1B, bytes[index + 1] == 0x5C { index += 2; break }
                inner.append(bytes[index]); index += 1
            }
            sequences.append(inner)
        }
        return sequences
    }

    @Test func tmuxsAnswerSaysWhetherItLetsPicturesThroughAndWhereThePaneLies() {
        // tmux 3.3 (a flag), 3.4 (a choice), one told not to, one that knows no such option.
        #expect(TmuxPassthrough.parse("1|0|0|on|bottom|1|1\n") == .init(allowed: true, passthrough: .init(origin: (0, 0))))
        #expect(TmuxPassthrough.parse("on|81|0|on|bottom|1|1") == .init(allowed: true, passthrough: .init(origin: (81, 0))))
        #expect(TmuxPassthrough.parse("all|0|12|off|top|1|1")?.passthrough == .init(origin: (0, 12)))
        #expect(TmuxPassthrough.parse("0|0|0|on|bottom|1|1")?.allowed == false)
        #expect(TmuxPassthrough.parse("|0|0|on|bottom|1|1")?.allowed == false)
        // A status line at the top puts the pane below it, by as many lines as it has.
        #expect(TmuxPassthrough.parse("1|0|0|on|top|1|1")?.passthrough == .init(origin: (0, 1)))
        #expect(TmuxPassthrough.parse("1|40|5|3|top|1|1")?.passthrough == .init(origin: (40, 8)))
        // Another window shown, or the session detached (no client): the pane is not on the screen.
        #expect(TmuxPassthrough.parse("1|0|0|on|top|1|1")?.shown == true && TmuxPassthrough.parse("1|0|0|on|top|1|2")?.shown == true)
        #expect(TmuxPassthrough.parse("1|0|0|on|top|0|1")?.shown == false && TmuxPassthrough.parse("1|0|0|on|top|1|0")?.shown == false)
        for broken in ["", "1|0|0", "1|x|0|on|top|1|1", "1|-1|0|on|top|1|1", "1|0|99999999999|on|top|1|1", "1|0|0|on|top", "1|0|0|on|top|1|1|extra"] {
            #expect(TmuxPassthrough.parse(broken) == nil, "\(broken)")
        }
    }

    @Test func aPictureIsWrappedAndPlacedAtThePanesCellOnTheScreen() {
        let pane = TmuxPassthrough(origin: (column: 81, row: 1))
        let sixel = Array("\u{1B}P0;1;0q\"1;1;8;6#0;2;100;0;0#0!8~\u{1B}\\".utf8)
        let wrapped = pane.at(2, 3, sixel)
        #expect(String(decoding: wrapped.prefix(7), as: UTF8.self) == "\u{1B}Ptmux;" && wrapped.suffix(2) == [0x1B, 0x5C])
        // Every ESC inside doubled: tmux ends the wrapper at the first single one.
        #expect(Self.unwrapped(wrapped) == [Array("\u{1B}7\u{1B}[5;84H".utf8) + sixel + Array("\u{1B}8".utf8)])
        #expect(Self.unwrapped(pane.wrap(Array("\u{1B}_Ga=d,d=I,i=1,q=2\u{1B}\\".utf8))) == [Array("\u{1B}_Ga=d,d=I,i=1,q=2\u{1B}\\".utf8)])
    }

    /// tmux drops a sequence past its input buffer: kitty's picture, many chunks, passes through in
    /// groups, each ending at a chunk's end with the cursor moved again, together the whole.
    @Test func aLongPicturePassesThroughInGroupsEachPlaced() {
        let chunk = Array("\u{1B}_Gm=1;".utf8) + [UInt8](repeating: 0x41, count: 4_096) + Array("\u{1B}\\".utf8)
        let picture = Array(repeating: chunk, count: 300).joined() + Array("\u{1B}_Gm=0;QQ==\u{1B}\\".utf8)
        let groups = Self.unwrapped(TmuxPassthrough(origin: (0, 0)).at(0, 0, Array(picture), group: 512 * 1_024))
        let move = Array("\u{1B}7\u{1B}[1;1H".utf8), back = Array("\u{1B}8".utf8)
        #expect(groups.count == 3)
        #expect(groups.allSatisfy { $0.starts(with: move) && $0.suffix(2) == back[...] && $0.count <= 512 * 1_024 + move.count + back.count })
        #expect(Array(groups.map { $0.dropFirst(move.count).dropLast(back.count) }.joined()) == picture)
    }
}

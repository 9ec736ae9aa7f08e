import Foundation

/// Pictures through tmux: tmux keeps its own screen and drops what it does not know, so a picture
/// reaches the terminal only wrapped for its pass-through (`ESC P tmux; … ESC \`, every ESC inside
/// doubled), which tmux allows only when told to (`set -g allow-passthrough on`, tmux 3.3 and
/// later). tmux writes what passes through straight to the terminal, wherever its cursor is then:
/// each picture is placed by the cursor moved to its cell on the terminal's whole screen — the
/// pane's cell moved by where the pane lies, below a status line at the top.
struct TmuxPassthrough: Equatable {
    /// Where the pane's top left cell lies on the terminal's screen.
    var origin: (column: Int, row: Int)

    static func == (a: TmuxPassthrough, b: TmuxPassthrough) -> Bool { a.origin == b.origin }

    /// What tmux says of the pane mapbook runs in.
    struct Answer: Equatable {
        var allowed: Bool
        var passthrough: TmuxPassthrough
        /// Whether the pane is on the terminal's screen: its window the one shown, its session attached.
        var shown = true
    }

    /// What tmux is asked, in its format language: the option, where the pane lies, the status
    /// line's lines and side, whether the pane's window is the one shown and its session attached.
    static let format = "#{allow-passthrough}|#{pane_left}|#{pane_top}|#{status}|#{status-position}|#{window_active}|#{session_attached}"

    /// tmux's answer to `format` ("1|0|0|on|top|1|1"); nil when it is not one (an older tmux, which
    /// knows no such option, answers "|0|0|on|bottom|1|1": not allowed).
    static func parse(_ text: String) -> Answer? {
        let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 7, let left = Int(fields[1]), let top = Int(fields[2]), (0...10_000).contains(left), (0...10_000).contains(top)
        else { return nil }
        // A flag in tmux 3.3 ("1"), a choice from 3.4 ("on", "all").
        let allowed = ["1", "on", "all"].contains(fields[0])
        let statusLines = switch fields[3] {
        case "on": 1
        case "2", "3", "4", "5": Int(fields[3]) ?? 0
        default: 0
        }
        let above = fields[4] == "top" ? statusLines : 0
        return Answer(allowed: allowed, passthrough: TmuxPassthrough(origin: (left, top + above)),
                      shown: fields[5] == "1" && (Int(fields[6]) ?? 0) > 0)
    }

    /// Asks the tmux that `environment` names (`TMUX`, `TMUX_PANE`) about this pane, within
    /// `limit`: nil when it cannot be asked or does not answer. The child gets tmux's own
    /// variables and `PATH`, nothing else (no token reaches it).
    static func ask(environment: [String: String], limit: Duration = .seconds(1)) -> Answer? {
        guard let socket = environment["TMUX"], !socket.isEmpty else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["tmux", "display-message", "-p"]
        var childEnvironment = ["TMUX": socket, "PATH": environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"]
        if let pane = environment["TMUX_PANE"], pane.hasPrefix("%"), pane.dropFirst().allSatisfy(\.isNumber) {
            arguments += ["-t", pane]
            childEnvironment["TMUX_PANE"] = pane
        }
        process.arguments = arguments + [format]
        process.environment = childEnvironment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { usleep(5_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else { return nil }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile().prefix(256), as: UTF8.self)
        return parse(text)
    }

    /// `bytes` wrapped for tmux's pass-through.
    func wrap(_ bytes: [UInt8]) -> [UInt8] {
        var out = Array("\u{1B}Ptmux;".utf8)
        out.reserveCapacity(bytes.count + bytes.count / 64 + 16)
        for byte in bytes {
            if byte == 0x1B { out.append(0x1B) }
            out.append(byte)
        }
        return out + Array("\u{1B}\\".utf8)
    }

    /// `bytes` (a picture, or its placement) written with the terminal's cursor at the pane's cell
    /// `column`, `row` (from 0), the terminal's cursor put back after. tmux drops a sequence past
    /// its input buffer (1 MiB): a long one (kitty's picture, its chunks each a sequence of their
    /// own) passes through in groups of at most `group` bytes, each with the cursor moved again.
    func at(_ column: Int, _ row: Int, _ bytes: [UInt8], group: Int = 512 * 1_024) -> [UInt8] {
        let move = Array("\u{1B}7\u{1B}[\(origin.row + row + 1);\(origin.column + column + 1)H".utf8), back = Array("\u{1B}8".utf8)
        var out: [UInt8] = [], start = 0, end = 0
        // Ends of sequences (ESC \) within the bytes: a group ends at the last one that fits.
        var index = 1
        while index < bytes.count {
            if bytes[index - 1] == 0x1B, bytes[index] == 0x5C {
                if index + 1 - start > group, end > start {
                    out += wrap(move + bytes[start..<end] + back)
                    start = end
                }
                end = index + 1
            }
            index += 1
        }
        return out + wrap(move + bytes[start...] + back)
    }
}

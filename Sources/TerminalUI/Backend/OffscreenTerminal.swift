import AppModel
import EventLoop
import Foundation
import MapRender
import MapbookCore
import TerminalCanvas
import TerminalRender

/// ncurses drawing into a temporary file instead of a terminal, counting what each frame costs in
/// bytes: for tests and benchmarks of what the app really sends.
@UIActor
public final class OffscreenTerminal {
    private let output: UnsafeMutablePointer<FILE>
    private let input: UnsafeMutablePointer<FILE>
    private let backend: CursesBackend

    public init(width: Int, height: Int, terminalType: String = "xterm-256color") throws {
        guard let output = tmpfile(), let input = fopen("/dev/null", "r") else {
            throw TerminalUnavailable(userMessage: "Cannot create a temporary file for an offscreen terminal.")
        }
        self.output = output
        self.input = input
        // As the app does: without a UTF-8 locale ncurses cannot write braille or box drawing.
        setlocale(LC_CTYPE, "C.UTF-8")
        backend = try CursesBackend(output: output, input: input, terminalType: terminalType)
        backend.resize(width: width, height: height)
    }

    /// Draws the frame; returns the bytes ncurses wrote for it.
    public func draw(_ frame: Frame) -> Int {
        let before = written
        backend.draw(frame)
        return written - before
    }

    private var written: Int {
        fflush(output)
        var info = stat()
        fstat(fileno(output), &info)
        return Int(info.st_size)
    }

    public func close() {
        backend.close()
        fclose(output)
        fclose(input)
    }
}

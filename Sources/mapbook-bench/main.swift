// Measures mapbook's HTTP client on its own, for scripts/bench-download:
//   mapbook-bench download URL FILE
// prints bytes, seconds, MiB/s and the process's peak resident memory.
import Foundation
import HTTP

func peakResidentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

let arguments = CommandLine.arguments
guard arguments.count == 4, arguments[1] == "download", let url = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: mapbook-bench download URL FILE\n".utf8))
    exit(64)
}
unlink(arguments[3])
let started = ContinuousClock.now
do {
    let result = try await HTTPClient().download(HTTPRequest(url: url), to: arguments[3])
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(String(format: "bytes=%lld seconds=%.3f MiB/s=%.1f peakRSS_KiB=%d", result.size, seconds,
                 Double(result.size) / 1_048_576 / seconds, peakResidentKiB()))
} catch {
    FileHandle.standardError.write(Data("mapbook-bench: \(error)\n".utf8))
    exit(1)
}

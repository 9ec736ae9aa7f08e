// Measures pieces of mapbook on their own, for the scripts in scripts/:
//   mapbook-bench download URL FILE   bytes, seconds, MiB/s and peak resident memory
//   mapbook-bench mvt-decode FILE…    per tile: bytes and median decode time over repeated runs
//   mapbook-bench sample-build DIR    builds the sample portal's packages into DIR: seconds and sizes
import Foundation
import HTTP
import SamplePortal
import TileFormats

func peakResidentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("mapbook-bench: \(message)\n".utf8))
    exit(status)
}

func download(_ url: URL, to path: String) async {
    unlink(path)
    let started = ContinuousClock.now
    do {
        let result = try await HTTPClient().download(HTTPRequest(url: url), to: path)
        let elapsed = seconds(ContinuousClock.now - started)
        print(String(format: "bytes=%lld seconds=%.3f MiB/s=%.1f peakRSS_KiB=%d", result.size, elapsed,
                     Double(result.size) / 1_048_576 / elapsed, peakResidentKiB()))
    } catch {
        fail("\(error)", status: 1)
    }
}

/// Median of `runs` decodes of each tile, in microseconds; one line per tile, then the total.
func decodeMVT(_ paths: [String], runs: Int = 200) {
    var total = 0.0
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)", status: 1) }
        var times: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            guard let tile = try? MVTTile(decoding: data) else { fail("\(path) does not decode", status: 1) }
            times.append(seconds(ContinuousClock.now - start))
            precondition(!tile.layers.isEmpty)
        }
        let median = times.sorted()[runs / 2] * 1e6
        total += median
        print(String(format: "%@ bytes=%d median_us=%.1f", (path as NSString).lastPathComponent, data.count, median))
    }
    print(String(format: "total_median_us=%.1f", total))
}

/// Builds the sample portal's content from scratch (no cache) and reports what it took.
func buildSample(into directory: String) {
    let started = ContinuousClock.now
    do {
        let content = try SampleContent.build(cacheDirectory: URL(fileURLWithPath: directory), useCache: false)
        let elapsed = seconds(ContinuousClock.now - started)
        for package in content.packages.values.sorted(by: { $0.name < $1.name }) {
            print(String(format: "%@ bytes=%d tiles=%d", package.name, package.data.count, package.tileCount))
        }
        print(String(format: "basemap_tiles=%d seconds=%.3f", content.basemap.tiles.count, elapsed))
    } catch {
        fail("\(error)", status: 1)
    }
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "download" where arguments.count == 4:
    guard let url = URL(string: arguments[2]) else { fail("not a URL: \(arguments[2])", status: 64) }
    await download(url, to: arguments[3])
case "mvt-decode" where arguments.count > 2:
    decodeMVT(Array(arguments.dropFirst(2)))
case "sample-build" where arguments.count == 3:
    buildSample(into: arguments[2])
default:
    fail("usage: mapbook-bench download URL FILE | mvt-decode FILE… | sample-build DIR", status: 64)
}

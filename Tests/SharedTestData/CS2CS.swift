import Foundation
import Testing

/// PROJ's own command-line tool (`proj-bin`), a second opinion on every transformation mapbook makes.
public enum CS2CS {
    public static let path = "/usr/bin/cs2cs"
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }
    public static let skipMessage: Comment = "needs cs2cs (scripts/setup installs proj-bin)"

    /// `cs2cs FROM TO` of one point, given and returned in the authorities' axis orders
    /// (EPSG:4326 is latitude first); nil when it prints no point.
    public static func transform(_ a: Double, _ b: Double, from: String, to: String) throws -> (Double, Double)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [from, to, "-f", "%.10f"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input; process.standardOutput = output; process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("\(a) \(b)\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let numbers = text.split(whereSeparator: { " \t\n".contains($0) }).compactMap { Double($0) }
        return numbers.count >= 2 ? (numbers[0], numbers[1]) : nil
    }
}

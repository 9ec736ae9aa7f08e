import Foundation

/// What a person can set in `$XDG_CONFIG_HOME/mapbook/config` (else `~/.config/mapbook/config`):
/// `key = value` lines, `#` comments. A file that cannot be read, a key mapbook does not know or
/// a value it cannot use is reported in one sentence each; the rest of the file still applies.
public struct Settings: Equatable, Sendable {
    /// Downloads an earlier run left part way resume by themselves once the portal answers.
    public var resumeDownloads = true
    /// The OAuth client id `mapbook auth login` signs in with (an app registered on the portal).
    public var clientID: String?

    public init() {}

    /// The settings in `text`, and a sentence for each line that could not be used.
    public init(parsing text: String, source: String = "config") throws(Problems) {
        var problems: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let pair = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let place = "\(source) line \(number + 1)"
            guard pair.count == 2, !pair[0].isEmpty else {
                problems.append("\(place) is not “key = value”.")
                continue
            }
            switch pair[0] {
            case "resume-downloads":
                guard let value = Self.bool(pair[1]) else {
                    problems.append("\(place): resume-downloads is true or false, not “\(TerminalText.sanitizedLine(pair[1], maxLength: 40))”.")
                    continue
                }
                resumeDownloads = value
            case "client-id":
                let value = TerminalText.sanitizedLine(pair[1], maxLength: 100)
                guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
                    problems.append("\(place): client-id is an app's client id (letters and digits), not “\(value)”.")
                    continue
                }
                clientID = value
            default:
                problems.append("\(place): mapbook has no setting “\(TerminalText.sanitizedLine(pair[0], maxLength: 40))”.")
            }
        }
        if !problems.isEmpty { throw Problems(settings: self, sentences: problems) }
    }

    /// Lines that could not be used, with the settings the others gave.
    public struct Problems: Error, Sendable {
        public var settings: Settings
        public var sentences: [String]
    }

    /// Where the file is.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGDirectories.config(environment) + "/config"
    }

    /// The settings in the file (defaults when there is none), and sentences about what could not
    /// be used.
    public static func load(from path: String = Settings.path()) -> (Settings, [String]) {
        guard FileManager.default.fileExists(atPath: path) else { return (Settings(), []) }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return (Settings(), ["\(path) could not be read as text; the defaults apply."])
        }
        do {
            return (try Settings(parsing: text, source: (path as NSString).lastPathComponent), [])
        } catch {
            return (error.settings, error.sentences)
        }
    }

    private static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }
}

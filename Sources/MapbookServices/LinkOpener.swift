import Foundation

/// Hands a link to the user's browser: the first command of `$BROWSER` (a colon-separated list, as
/// the convention has it), else `xdg-open`. Only http and https links; the link is one argument,
/// never part of a shell line. The browser gets this process's environment less its secrets.
public enum LinkOpener {
    /// Variables that hold a token or key: never handed to a child process.
    public static let secretVariables: Set<String> = ["MAPBOOK_TOKEN", "MAPBOOK_API_KEY", "MAPBOOK_MIRROR_TOKEN"]

    /// This process's environment without the secret variables.
    public static func childEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        environment.filter { !secretVariables.contains($0.key) }
    }

    /// nil when the browser was started; else why not, in one sentence.
    public static func open(_ link: String) -> String? {
        guard let url = URL(string: link), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            return "Only http and https links are opened."
        }
        let browser = ProcessInfo.processInfo.environment["BROWSER"]?.split(separator: ":").first.map(String.init)
            .flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? "xdg-open"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [browser, url.absoluteString]
        process.environment = childEnvironment()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            return "The browser (\(browser)) could not be started."
        }
        return process.terminationStatus == 0 ? nil : "The browser (\(browser)) could not open the link."
    }
}

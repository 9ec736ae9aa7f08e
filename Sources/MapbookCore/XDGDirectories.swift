import Foundation

/// Where mapbook keeps things, by the XDG base directory rules: `$XDG_DATA_HOME`,
/// `$XDG_CONFIG_HOME` and `$XDG_CACHE_HOME` when set to an absolute path (a relative one is
/// invalid and ignored), else `~/.local/share`, `~/.config` and `~/.cache`; each with `mapbook/`.
public enum XDGDirectories {
    public static func data(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        base("XDG_DATA_HOME", default: ".local/share", environment)
    }

    public static func config(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        base("XDG_CONFIG_HOME", default: ".config", environment)
    }

    public static func cache(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        base("XDG_CACHE_HOME", default: ".cache", environment)
    }

    public static func state(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        base("XDG_STATE_HOME", default: ".local/state", environment)
    }

    private static func base(_ variable: String, default relative: String, _ environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value + "/mapbook" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/" + relative + "/mapbook"
    }
}

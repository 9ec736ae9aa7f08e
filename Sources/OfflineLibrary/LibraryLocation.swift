import Foundation
import MapbookCore

/// Where the offline library lives: `--data-dir`, else `MAPBOOK_DATA_DIR`, else
/// `$XDG_DATA_HOME/mapbook`, else `~/.local/share/mapbook` (the XDG default).
public enum LibraryLocation {
    public static func root(dataDir: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dataDir, !dataDir.isEmpty { return dataDir }
        if let explicit = environment["MAPBOOK_DATA_DIR"], !explicit.isEmpty { return explicit }
        return XDGDirectories.data(environment)
    }

    /// The portal answers kept for revalidation (`HTTPCache`): `$XDG_CACHE_HOME/mapbook/http/<portal key>`.
    public static func httpCache(portalKey: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        httpCacheRoot(environment: environment) + "/" + portalKey
    }

    public static func httpCacheRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGDirectories.cache(environment) + "/http"
    }

    /// A portal's folder name: its host, with the port and path when they are not the defaults
    /// (`www.arcgis.com`, `127.0.0.1_8080`, `gis.example.org_portal`). Only safe characters remain.
    public static func portalKey(for portal: URL) -> String {
        var key = portal.host ?? "portal"
        if let port = portal.port, port != 80, port != 443 { key += "_\(port)" }
        let path = portal.path.split(separator: "/").filter { $0 != "sharing" && $0 != "rest" }
        if !path.isEmpty { key += "_" + path.joined(separator: "_") }
        let safe = key.lowercased().map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" ? $0 : "_" }
        return String(safe.prefix(128))
    }
}

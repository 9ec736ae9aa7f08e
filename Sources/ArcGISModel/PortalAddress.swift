import Foundation

/// How a portal's address is compared: without a trailing slash or `/sharing/rest`, ignoring case.
public enum PortalAddress {
    public static func key(_ portal: String) -> String {
        var root = portal.lowercased()
        while root.hasSuffix("/") { root.removeLast() }
        if root.hasSuffix("/sharing/rest") { root.removeLast("/sharing/rest".count) }
        return root
    }
}

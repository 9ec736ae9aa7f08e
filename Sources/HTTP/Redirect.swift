import Foundation

/// How mapbook follows a redirect. libcurl would follow them itself, but it sends custom headers —
/// the `X-Esri-Authorization` token among them — to whatever host a redirect names; so redirects are
/// followed here, one hop at a time, and credentials stay with the origin they were given for.
public enum Redirect {
    /// Request headers that carry credentials: sent only to the origin of the original request.
    public static let credentialHeaders: Set<String> = ["x-esri-authorization", "authorization", "cookie", "proxy-authorization"]

    /// The request to send after `response` to `request`, or nil when `response` is not a redirect
    /// (or names no `Location`: then it is the answer). Throws when the redirect must not be followed:
    /// to a scheme other than http(s), or from https to plain http.
    public static func next(after request: HTTPRequest, status: Int, location: String?) throws(HTTPError) -> HTTPRequest? {
        guard [301, 302, 303, 307, 308].contains(status), let location, !location.isEmpty else { return nil }
        let from = request.url
        guard let to = URL(string: location, relativeTo: from)?.absoluteURL, let scheme = to.scheme?.lowercased(),
              ["http", "https"].contains(scheme), to.host != nil else {
            throw .invalidURL(location)
        }
        if from.scheme?.lowercased() == "https", scheme == "http" {
            throw .insecureRedirect(from: from.host ?? "", to: to.host ?? "")
        }
        var next = request
        next.url = to
        // As browsers and curl do: 303 always, and 301/302 after a POST, continue with a GET.
        if status == 303 || (request.method == "POST" && (status == 301 || status == 302)) {
            next.method = request.method == "HEAD" ? "HEAD" : "GET"
            next.body = nil
        }
        if !sameOrigin(from, to) {
            next.headers.removeAll { credentialHeaders.contains($0.0.lowercased()) }
            // A body posted (a password, a code, a refresh token) is never sent on to another host.
            if next.body != nil { throw .bodyRedirected(from: from.host ?? "", to: to.host ?? "") }
        }
        return next
    }

    /// Same scheme, host and port (default ports filled in).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool { a.origin == b.origin }
}

extension URL {
    /// `scheme://host[:port]`, lower-cased, the port only when it is not the scheme's default: what
    /// credentials, kept answers and tokens are tied to.
    public var origin: String {
        let scheme = self.scheme?.lowercased() ?? ""
        let port = self.port.flatMap { (scheme == "https" && $0 == 443) || (scheme == "http" && $0 == 80) ? nil : $0 }
        return "\(scheme)://\(host?.lowercased() ?? "")\(port.map { ":\($0)" } ?? "")"
    }
}

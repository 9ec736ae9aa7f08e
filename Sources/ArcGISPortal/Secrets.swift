import Foundation
import HTTP

/// The secrets a session handles — passwords, access and refresh tokens, API keys, sign-in codes —
/// and the two rules that keep them: a token is only ever printable ASCII without spaces (so it
/// cannot split a header or a line), and no server text is shown with a secret still in it.
public enum Secrets {
    /// The longest token kept or sent. ArcGIS tokens are a few hundred characters; JWTs a few
    /// thousand at most.
    public static let maxTokenLength = 8192

    /// Whether `token` may be kept and sent in a header: 1 to `maxTokenLength` printable ASCII
    /// characters, no space, no control character.
    public static func isAcceptableToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= maxTokenLength && token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// Form fields whose values are secrets.
    static let secretFields: Set<String> = ["password", "token", "refresh_token", "code", "code_verifier", "client_secret", "access_token"]

    /// The secrets a request carries: the token in its credential header, and the secret fields of
    /// its form body.
    static func carried(by request: HTTPRequest) -> [String] {
        var found: [String] = []
        for (name, value) in request.headers where Redirect.credentialHeaders.contains(name.lowercased()) {
            found.append(value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : value)
        }
        if let body = request.body {
            for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, secretFields.contains(parts[0].removingPercentEncoding ?? parts[0]) else { continue }
                let value = parts[1].replacingOccurrences(of: "+", with: " ")
                found.append(value.removingPercentEncoding ?? value)
                found.append(parts[1])
            }
        }
        return found
    }

    /// `text` with every secret of at least four characters replaced by `[redacted]`.
    public static func redact(_ text: String, _ secrets: [String]) -> String {
        secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }.reduce(text) {
            $0.replacingOccurrences(of: $1, with: "[redacted]")
        }
    }
}

import HTTP
import MapbookCore
import ArcGISModel

/// A portal that answered, but not with what was asked for. (A portal that could not be reached at
/// all throws `HTTPError`.)
public struct PortalError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The item does not exist, or is not shared with the caller (ArcGIS says both the same way).
        case notFound
        /// The caller is signed in but may not see this.
        case noAccess
        /// Signing in is required (499, or 401 from a web server in front of the portal).
        case tokenRequired
        /// The token is invalid or expired (498).
        case invalidToken
        /// The portal failed (5xx codes in the error body).
        case serverError(code: Int)
        /// Any other ArcGIS error code, such as 400 for a bad parameter.
        case rejected(code: Int)
        /// The answer was not the JSON shape the REST API promises.
        case malformedResponse
        /// The item exists but is not what the operation needs (e.g. not a Web Map).
        case wrongItemType(expected: String, actual: String)
    }

    public var kind: Kind
    public var host: String
    /// The server's own message, sanitized; may be empty.
    public var serverMessage: String
    /// The item the request was about, when there was one.
    public var itemID: ItemID?
    /// Whether the request carried a token: "sign in" then means the portal did not accept it.
    public var tokenSent: Bool
    /// Signed in, but the token was kept from this host: the portal does not vouch for it.
    public var tokenWithheld: Bool

    public init(_ kind: Kind, host: String, serverMessage: String = "", itemID: ItemID? = nil, tokenSent: Bool = false,
                tokenWithheld: Bool = false) {
        self.kind = kind; self.host = host
        self.serverMessage = TerminalText.sanitizedLine(serverMessage, maxLength: 200)
        self.itemID = itemID
        self.tokenSent = tokenSent
        self.tokenWithheld = tokenWithheld && !tokenSent
    }

    /// Maps an ArcGIS error code and message (`{"error":{"code":…,"message":…}}`) to its kind.
    public static func kind(forArcGISCode code: Int, message: String) -> Kind {
        switch code {
        case 498: return .invalidToken
        case 499, 401: return .tokenRequired
        case 403: return .noAccess
        case 404: return .notFound
        case 400 where message.localizedCaseInsensitiveContains("does not exist")
                    || message.localizedCaseInsensitiveContains("not found")
                    || message.localizedCaseInsensitiveContains("inaccessible"):
            return .notFound
        case 500...599: return .serverError(code: code)
        default: return .rejected(code: code)
        }
    }
}

extension PortalError: UserFacingError {
    public var userMessage: String {
        let subject = itemID.map { "The item \($0)" } ?? "The requested resource"
        switch kind {
        case .tokenRequired where tokenWithheld, .invalidToken where tokenWithheld:
            return "\(host) asks for a sign-in, but your portal does not vouch for that server, so mapbook did not send it your token."
        case .notFound:
            return "\(subject) does not exist on \(host), or it is not shared with you."
        case .noAccess:
            return "You do not have access to \(subject.lowercasedFirst) on \(host)."
        case .tokenRequired where tokenSent:
            return "\(host) did not accept this sign-in for this: it may be for another portal or user. Sign in as a user who has access: mapbook auth login."
        case .tokenRequired:
            return "\(host) requires signing in for this. Sign in: mapbook auth login (or set MAPBOOK_TOKEN to a valid token)."
        case .invalidToken where tokenSent:
            return "\(host) did not accept the token: it is invalid or has expired. Sign in again: mapbook auth login."
        case .invalidToken:
            return "\(host) asks for a new token, but none was sent. Sign in: mapbook auth login (or set MAPBOOK_TOKEN to a valid token)."
        case .serverError(let code):
            return "\(host) had a problem (error \(code)\(serverMessage.isEmpty ? "" : ": \(serverMessage)")). Try again later."
        case .rejected(let code):
            return "\(host) refused the request (error \(code)\(serverMessage.isEmpty ? "" : ": \(serverMessage)"))."
        case .malformedResponse:
            return "\(host) sent an answer that is not valid ArcGIS JSON\(serverMessage.isEmpty ? "" : " (\(serverMessage))")."
        case .wrongItemType(let expected, let actual):
            return "\(subject) is a \(actual.isEmpty ? "item of unknown type" : actual), not a \(expected)."
        }
    }
}

private extension String {
    var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}

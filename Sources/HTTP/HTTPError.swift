import Foundation
import MapbookCore

/// Why a request failed, in terms a caller can act on: retry, report offline, or stop.
public enum HTTPError: Error, Sendable, Equatable {
    /// The host name did not resolve: usually no network at all.
    case cannotResolveHost(String)
    /// Nothing answered on the host's port, or the network is unreachable.
    case cannotConnect(String)
    /// Connecting, or the whole request, took too long.
    case timedOut(String)
    /// Data stopped flowing mid-transfer (low-speed abort).
    case stalled(String)
    /// Bytes kept coming, but too slowly for the answer to be whole within the request's deadline
    /// (a server dripping a byte at a time): given up, not retried.
    case deadlineExceeded(String, seconds: Int)
    /// Bytes came, but fewer than the request's `minimumRate` over its window (a mirror dripping
    /// bytes): given up, not retried, so the caller can take them from elsewhere.
    case tooSlow(String, bytesPerSecond: Int, seconds: Int)
    /// A request header with a line break or NUL in it (a token that would split the headers): the
    /// request is not sent.
    case invalidHeader(String)
    /// The connection closed before the response was complete.
    case connectionLost(String)
    /// The server answered with an HTTP error status.
    case status(Int, host: String, retryAfter: Duration?)
    /// TLS failed: certificate not trusted, handshake error.
    case tls(host: String, detail: String)
    case tooManyRedirects(String)
    /// A redirect from https to plain http, which would send the rest of the exchange in the clear.
    case insecureRedirect(from: String, to: String)
    /// A redirect to another host that would send the request's body (a password, a sign-in code,
    /// a refresh token) there.
    case bodyRedirected(from: String, to: String)
    /// An in-memory response exceeded the configured cap.
    case responseTooLarge(limit: Int)
    /// The server answered a range request with a range other than the one asked for.
    case unexpectedRange(String)
    case diskFull(path: String)
    case diskWrite(path: String, errno: Int32)
    case invalidURL(String)
    case cancelled
    /// Anything else libcurl reports, with its code and message.
    case transport(code: Int, message: String)

    /// Failures worth trying again with backoff: timeouts, stalls, dropped connections, and HTTP 408,
    /// 429, 500, 502, 503, 504 (curl's `--retry`). Refused connections and names that do not resolve
    /// get one quick retry only (`RetryPolicy`): they almost always mean nothing is there, and that
    /// should show at once.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .stalled, .connectionLost: return true
        case .status(let code, _, _): return [408, 429, 500, 502, 503, 504].contains(code)
        default: return false
        }
    }

    /// Nothing listens on the port, or the host name does not resolve.
    public var isRefusedOrUnresolved: Bool {
        switch self {
        case .cannotConnect, .cannotResolveHost: return true
        default: return false
        }
    }

    /// The server answered with an HTTP status (as opposed to the network failing).
    public var isStatus: Bool {
        if case .status = self { return true }
        return false
    }

    /// What the failure says about the server's reachability: no network (a name that does not
    /// resolve, no answer in time), a server that is not answering (refused, reset, closed early,
    /// stalled), or a server that answered (an HTTP error, TLS, anything else).
    public var networkState: NetworkState {
        switch self {
        case .cannotResolveHost, .timedOut: .offline
        case .cannotConnect, .connectionLost, .stalled, .deadlineExceeded, .tooSlow, .transport: .portalNotAnswering
        default: .online
        }
    }

    /// True when the failure says the portal cannot be reached at all (as opposed to answering badly).
    public var isUnreachable: Bool { unreachableHost != nil }

    /// The host that could not be reached, when that is what happened.
    public var unreachableHost: String? {
        switch self {
        case .cannotResolveHost(let host), .cannotConnect(let host), .timedOut(let host): return host
        default: return nil
        }
    }
}

extension HTTPError: UserFacingError {
    public var userMessage: String {
        switch self {
        case .cannotResolveHost(let host):
            return "Cannot reach \(host): the name does not resolve. Check the internet connection."
        case .cannotConnect(let host):
            return "Cannot reach \(host): the connection was refused or the network is unreachable."
        case .timedOut(let host):
            return "\(host) did not answer in time. Check the connection and try again."
        case .stalled(let host):
            // Said of searches and listings as well as downloads: no promise that only a download keeps.
            return "\(host) stalled: nothing came for too long, so the request was given up. Try again."
        case .deadlineExceeded(let host, let seconds):
            return "\(host) answered too slowly: its answer was not complete after \(seconds) s."
        case .tooSlow(let host, let rate, let seconds):
            return "\(host) sent less than \(Format.bytes(Int64(rate)))/s for \(seconds) s, so the transfer was given up."
        case .invalidHeader(let name):
            return "A request was not sent: its \(name) header held a line break or control character."
        case .connectionLost(let host):
            return "The connection to \(host) was lost mid-transfer. Try again."
        case .status(let code, let host, _):
            return "\(host) answered HTTP \(code) (\(HTTPError.reason(code)))."
        case .tls(let host, let detail):
            return "A secure connection to \(host) could not be made (\(TerminalText.sanitizedLine(detail, maxLength: 200)))."
        case .tooManyRedirects(let host):
            return "\(host) redirected too many times."
        case .insecureRedirect(let from, let to):
            return "\(from) redirected to \(to) over plain http; mapbook does not follow a secure connection to an insecure one."
        case .bodyRedirected(let from, let to):
            return "\(from) redirected a request with a body to \(to); mapbook sends what it posts only to the host it was meant for."
        case .responseTooLarge(let limit):
            return "The server's answer was larger than \(Format.bytes(Int64(limit))) and was refused."
        case .unexpectedRange(let host):
            return "\(host) sent a different part of the file than was asked for. Try again."
        case .diskFull(let path):
            return "The disk is full: \(path) could not be written. Free some space and try again."
        case .diskWrite(let path, let code):
            return "\(path) could not be written (\(String(cString: strerror(code))))."
        case .invalidURL(let url):
            return "\(url) is not a URL mapbook can use."
        case .cancelled:
            return "Cancelled."
        case .transport(_, let message):
            return "The request failed: \(TerminalText.sanitizedLine(message, maxLength: 200))."
        }
    }

    static func reason(_ code: Int) -> String {
        switch code {
        case 400: "bad request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not found"
        case 408: "request timeout"
        case 416: "range not satisfiable"
        case 429: "too many requests"
        case 500: "internal server error"
        case 502: "bad gateway"
        case 503: "service unavailable"
        case 504: "gateway timeout"
        default: code >= 500 ? "server error" : "client error"
        }
    }
}

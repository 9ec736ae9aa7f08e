import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
import ArcGISModel

/// One portal's sign-in as kept: who, how (OAuth or a password's token), the client id OAuth needs
/// to renew, and the tokens.
public struct StoredCredential: Codable, Sendable, Equatable {
    public enum Method: String, Codable, Sendable { case oauth, password }

    /// The portal's root address, as `--portal` names it.
    public var portal: String
    public var username: String?
    public var method: Method
    public var clientID: String?
    public var tokens: SignInTokens

    public init(portal: String, username: String?, method: Method, clientID: String?, tokens: SignInTokens) {
        self.portal = portal; self.username = username; self.method = method; self.clientID = clientID; self.tokens = tokens
    }

    /// Whether a new access token can still be had without signing in again.
    public var isRenewable: Bool {
        guard method == .oauth, clientID != nil, tokens.refreshToken != nil else { return false }
        return (tokens.refreshExpires ?? .distantFuture) > Date()
    }
}

public struct CredentialError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}

/// Sign-ins, one per portal: in the desktop keyring (libsecret) when a Secret Service runs on the
/// session bus, else in `$XDG_CONFIG_HOME/mapbook/credentials.json` — mode 0600 in a folder of mode
/// 0700, written atomically, and refused (with a sentence) when anyone but its owner could read it.
/// Tokens are read from there and sent in headers; nothing here prints them.
public struct CredentialStore: Sendable {
    public let directory: String
    public var path: String { directory + "/credentials.json" }
    private let keyring: Keyring?

    /// `keyring`: nil finds out (a session bus, a Secret Service on it, and `MAPBOOK_KEYRING` not
    /// `0`); false keeps to the file.
    public init(directory: String = XDGDirectories.config(), keyring: Bool? = nil) {
        self.directory = directory
        self.keyring = (keyring ?? Keyring.isAvailable()) ? Keyring() : nil
    }

    /// Where a credential is kept, for `auth status`.
    public var location: String { keyring != nil ? "the desktop keyring (Secret Service)" : "file \(path)" }

    /// The sign-ins kept in the file; refused (with a sentence) when others can read it or it is
    /// not a plain file of this user's.
    public func load() throws -> [StoredCredential] {
        guard let info = try fileStatus() else { return [] }
        guard info.st_mode & 0o077 == 0 else {
            throw CredentialError("\(path) can be read by others, so mapbook will not use it: chmod 600 it, or sign in again.")
        }
        return try readFile()
    }

    /// The file's status, nil when there is none; a symbolic link, or anything but a regular file,
    /// is refused: writing would replace the link and leave the tokens where it pointed.
    private func fileStatus() throws -> stat? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CredentialError("\(path) is not a plain file (a symbolic link?), so mapbook will neither read nor write it: remove it, then sign in again.")
        }
        return info
    }

    /// Reads the file (never through a symbolic link), whatever its mode.
    private func readFile() throws -> [StoredCredential] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { throw CredentialError("\(path) could not be read.") }
        let data = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readDataToEndOfFile()
        do {
            return try JSONDecoder.credentials.decode([StoredCredential].self, from: data)
        } catch {
            throw CredentialError("\(path) is damaged. Sign in again: mapbook auth login")
        }
    }

    /// Every sign-in in the file, for a change to it: read even when others could read the file
    /// (the rewrite makes it 0600 again, and no other portal's sign-in is dropped on the way); a
    /// damaged file counts as empty. A symbolic link is refused.
    private func loadForChange() throws -> [StoredCredential] {
        guard try fileStatus() != nil else { return [] }
        do {
            return try readFile()
        } catch {
            return []
        }
    }

    public func credential(for portal: URL) throws -> StoredCredential? {
        if let keyring, let kept = try keyring.lookup(PortalAddress.key(portal.absoluteString)) { return kept }
        return try load().first { PortalAddress.key($0.portal) == PortalAddress.key(portal.absoluteString) }
    }

    /// Keeps `credential`, replacing the portal's earlier one (in the keyring, a copy in the file
    /// goes). A damaged file is replaced whole.
    public func save(_ credential: StoredCredential) throws {
        guard Secrets.isAcceptableToken(credential.tokens.accessToken),
              credential.tokens.refreshToken.map(Secrets.isAcceptableToken) ?? true else {
            throw CredentialError("The sign-in's token holds spaces or control characters; it was not kept.")
        }
        var all = try loadForChange()
        let before = all.count
        all.removeAll { PortalAddress.key($0.portal) == PortalAddress.key(credential.portal) }
        if let keyring {
            try keyring.store(credential, key: PortalAddress.key(credential.portal))
            if all.count != before { try store(all) }
            return
        }
        all.append(credential)
        try store(all)
    }

    /// Forgets the portal's credential, wherever it is kept; returns it, or nil when there was none.
    @discardableResult
    public func remove(portal: URL) throws -> StoredCredential? {
        let key = PortalAddress.key(portal.absoluteString)
        let fromKeyring = try keyring.flatMap { keyring in try keyring.lookup(key).map { kept in try keyring.clear(key); return kept } }
        var all = try loadForChange()
        guard let index = all.firstIndex(where: { PortalAddress.key($0.portal) == key }) else { return fromKeyring }
        let removed = all.remove(at: index)
        try store(all)
        return fromKeyring ?? removed
    }

    /// A session for the portal's client: its token, renewed with the refresh token when it expires
    /// (each new token kept); nil when there is no credential.
    public func session(for portal: URL, http: HTTPClient = PortalClient.apiHTTP) throws -> SignInSession? {
        guard let credential = try credential(for: portal) else { return nil }
        guard credential.isRenewable || credential.tokens.expires > Date() else {
            throw CredentialError("Your sign-in to \(portal.host ?? portal.absoluteString) has expired. Sign in again: mapbook auth login")
        }
        let session = SignInSession.signedOut()
        use(credential, in: session, http: http)
        return session
    }

    /// Puts `credential` into `session`: its token, and a refresh when it is renewable.
    public func use(_ credential: StoredCredential, in session: SignInSession, http: HTTPClient = PortalClient.apiHTTP) {
        guard credential.isRenewable, let clientID = credential.clientID, let refreshToken = credential.tokens.refreshToken,
              let portal = URL(string: credential.portal) else {
            return session.signIn(credential.tokens)
        }
        let store = self
        session.signIn(credential.tokens, refresh: {
            try await PortalClient(portal: portal, http: http).refresh(refreshToken, clientID: clientID)
        }, renewed: { tokens in
            var renewed = credential
            renewed.tokens = tokens
            try? store.save(renewed)
        })
    }

    private func store(_ credentials: [StoredCredential]) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(directory, 0o700)
        let data = try JSONEncoder.credentials.encode(credentials)
        // Created 0600 before a byte is written, then renamed over the old file.
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw CredentialError("\(path) could not be written.") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CredentialError("\(path) could not be written.")
        }
    }

}

extension JSONEncoder {
    static let credentials: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}

extension JSONDecoder {
    static let credentials: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}

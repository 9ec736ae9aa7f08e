import CSecret
import Foundation
import MapbookCore

/// The desktop keyring through libsecret: one secret per portal (the sign-in as JSON), under the
/// schema `org.mapbook.Credential` with the portal's address as its attribute.
struct Keyring: Sendable {
    /// A Secret Service answers on the session bus. Without a session bus nothing is tried (GLib
    /// would try to start one), and `MAPBOOK_KEYRING=0` keeps mapbook to its file. Without libsecret
    /// on the machine, neither is there a keyring.
    static func isAvailable(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard environment["MAPBOOK_KEYRING"] != "0", environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty == false else { return false }
        return mb_secret_service_running() != 0
    }

    func lookup(_ portal: String) throws -> StoredCredential? {
        var message: UnsafeMutablePointer<CChar>?
        let secret = mb_secret_lookup(portal, &message)
        try Self.check(message)
        guard let secret else { return nil }
        defer { mb_secret_free(secret) }
        guard let credential = try? JSONDecoder.credentials.decode(StoredCredential.self, from: Data(String(cString: secret).utf8)) else {
            throw CredentialError("The sign-in kept in the desktop keyring for \(portal) is damaged. Sign in again: mapbook auth login")
        }
        return credential
    }

    func store(_ credential: StoredCredential, key: String) throws {
        let json = String(decoding: try JSONEncoder.credentials.encode(credential), as: UTF8.self)
        var message: UnsafeMutablePointer<CChar>?
        let label = "mapbook sign-in to \(URL(string: credential.portal)?.host ?? credential.portal)"
        _ = mb_secret_store(key, label, json, &message)
        try Self.check(message)
    }

    func clear(_ portal: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        _ = mb_secret_clear(portal, &message)
        try Self.check(message)
    }

    /// Throws the keyring's refusal, when it gave one (its message is freed here).
    private static func check(_ message: UnsafeMutablePointer<CChar>?) throws {
        guard let message else { return }
        defer { free(message) }
        throw CredentialError("The desktop keyring refused: \(TerminalText.sanitizedLine(String(cString: message), maxLength: 200)).")
    }
}

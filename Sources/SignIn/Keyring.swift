import CSecret
import Foundation
import MapbookCore

/// The desktop keyring through libsecret: one secret per portal (the sign-in as JSON), under the
/// schema `org.mapbook.Credential` with the portal's address as its attribute.
struct Keyring: Sendable {
    /// A Secret Service answers on the session bus. Without a session bus nothing is tried (GLib
    /// would try to start one), and `MAPBOOK_KEYRING=0` keeps mapbook to its file.
    static func isAvailable(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard environment["MAPBOOK_KEYRING"] != "0", environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty == false else { return false }
        return mapbook_secret_service_running() != 0
    }

    func lookup(_ portal: String) throws -> StoredCredential? {
        var error: UnsafeMutablePointer<GError>?
        let secret = mapbook_secret_lookup(portal, &error)
        try Self.check(error)
        guard let secret else { return nil }
        defer { secret_password_free(secret) }
        guard let credential = try? JSONDecoder.credentials.decode(StoredCredential.self, from: Data(String(cString: secret).utf8)) else {
            throw CredentialError("The sign-in kept in the desktop keyring for \(portal) is damaged. Sign in again: mapbook auth login")
        }
        return credential
    }

    func store(_ credential: StoredCredential, key: String) throws {
        let json = String(decoding: try JSONEncoder.credentials.encode(credential), as: UTF8.self)
        var error: UnsafeMutablePointer<GError>?
        let label = "mapbook sign-in to \(URL(string: credential.portal)?.host ?? credential.portal)"
        _ = mapbook_secret_store(key, label, json, &error)
        try Self.check(error)
    }

    func clear(_ portal: String) throws {
        var error: UnsafeMutablePointer<GError>?
        _ = mapbook_secret_clear(portal, &error)
        try Self.check(error)
    }

    private static func check(_ error: UnsafeMutablePointer<GError>?) throws {
        guard let error else { return }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        g_error_free(error)
        throw CredentialError("The desktop keyring refused: \(TerminalText.sanitizedLine(message, maxLength: 200)).")
    }
}

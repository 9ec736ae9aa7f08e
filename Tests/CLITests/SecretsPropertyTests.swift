import Foundation
import LoopbackHTTP
import PortalFixtures
import SamplePortal
import Testing

/// Every secret a session handles — a password, an access token, a refresh token, an API key —
/// sent through every path that prints or stores text, against a portal that echoes whatever it
/// is sent into its answers and errors. Each secret may be found only in the auth header, in the
/// body of the token request it belongs to, and in the 0600 credential store; never in output, a
/// cache, a log, an address, another file, or a child process's environment.
@Suite("Secrets stay where they belong", .serialized)
struct SecretsPropertyTests {
    /// A secret as a portal might issue it: printable, with characters that need encoding.
    static func secret(_ kind: String, _ generator: inout SystemRandomNumberGenerator) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=!*")
        return kind + "-" + String((0..<Int.random(in: 24...64, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// Whether `text` holds `secret` or any ten characters of it in a row (a quote cut short
    /// still leaks).
    static func leaks(_ text: String, _ secret: String) -> Bool {
        let characters = Array(secret)
        return (0...max(characters.count - 10, 0)).contains { text.contains(String(characters[$0..<min($0 + 10, characters.count)])) }
    }

    /// A portal that quotes back what it gets: the posted form as a non-JSON body, the token
    /// header inside an ArcGIS error message, the refresh token in an OAuth error.
    static func echoingPortal() throws -> LoopbackServer {
        try LoopbackServer { request in
            let form = String(decoding: request.body, as: UTF8.self).removingPercentEncoding ?? ""
            let header = request.headers["x-esri-authorization"] ?? ""
            switch request.path {
            case "/sharing/rest/generateToken":
                return LoopbackResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Data("echo: \(form)".utf8))
            case "/sharing/rest/oauth2/token":
                return .json(#"{"error":{"code":400,"message":"invalid refresh: \#(form.replacingOccurrences(of: "\"", with: ""))","details":[]}}"#)
            default:
                return .json(#"{"error":{"code":403,"message":"Access denied for \#(header)","details":["you sent \#(header)"]}}"#)
            }
        }
    }

    @Test(arguments: 0..<3)
    func everySecretStaysInItsPlace(round: Int) async throws {
        var generator = SystemRandomNumberGenerator()
        let password = Self.secret("pw", &generator), token = Self.secret("tok", &generator)
        let refresh = Self.secret("rt", &generator), apiKey = Self.secret("key", &generator)
        let secrets = [password, token, refresh, apiKey]
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-secrets-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let echo = try Self.echoingPortal()
        let sample = try SampleFixture.start()
        defer { echo.stop(); sample.stop() }
        let portal = echo.baseURL.absoluteString
        let environment = ["XDG_CONFIG_HOME": home + "/config", "XDG_CACHE_HOME": home + "/cache", "XDG_STATE_HOME": home + "/state",
                           "XDG_DATA_HOME": home + "/data"]
        var outputs: [String] = []
        func run(_ arguments: [String], extra: [String: String] = [:], input: String? = nil) async throws {
            let result = try await CLI.runAsync(arguments, environment: environment.merging(extra) { $1 }, input: input)
            outputs += [result.stdout, result.stderr]
        }

        // The password: to an echoing token endpoint, and a wrong one to the sample portal.
        try await run(["auth", "login", "--portal", portal, "--username", "u", "--password-stdin"], input: password + "\n")
        try await run(["auth", "login", "--portal", sample.baseURL.absoluteString, "--username", "demo", "--password-stdin"],
                      input: password + "\n")
        // The token and the API key, from the environment, to a portal that quotes them back.
        for (name, value) in [("MAPBOOK_TOKEN", token), ("MAPBOOK_API_KEY", apiKey)] {
            try await run(["info", SampleCatalog.webMapID, "--portal", portal], extra: [name: value])
            try await run(["areas", "--portal", portal, "--json"], extra: [name: value])
            try await run(["maps", "--query", "x", "--portal", portal, "--json"], extra: [name: value])
            try await run(["search", "Bangor", "--portal", portal], extra: [name: value])
        }
        // The refresh token: a kept OAuth sign-in whose access token has expired, renewed at a
        // portal that quotes the refresh request back.
        let credentials = home + "/config/mapbook/credentials.json"
        try FileManager.default.createDirectory(atPath: home + "/config/mapbook", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let kept = #"[{"portal":"\#(portal)","username":"u","method":"oauth","clientID":"app","tokens":{"accessToken":"\#(token)","expires":1000,"refreshToken":"\#(refresh)","refreshExpires":99999999999}}]"#
        FileManager.default.createFile(atPath: credentials, contents: Data(kept.utf8), attributes: [.posixPermissions: 0o600])
        try await run(["info", SampleCatalog.webMapID, "--portal", portal])
        try await run(["auth", "status", "--portal", portal, "--json"])
        try await run(["auth", "logout", "--portal", portal])

        // Nowhere in what was printed.
        for secret in secrets {
            #expect(!outputs.contains { Self.leaks($0, secret) }, "a secret was printed: \(secret.prefix(3))…")
        }
        // In no file but the credential store (and there only while signed in: logout removed it).
        let files = FileManager.default.enumerator(atPath: home)?.compactMap { $0 as? String } ?? []
        for file in files where !(home + "/" + file).hasSuffix("credentials.json") {
            guard let data = FileManager.default.contents(atPath: home + "/" + file) else { continue }
            let text = String(decoding: data, as: UTF8.self)
            #expect(!secrets.contains { Self.leaks(text, $0) }, "\(file) holds a secret")
        }
        #expect(!((try? String(contentsOfFile: credentials, encoding: .utf8)) ?? "").contains(refresh), "logout forgot the sign-in")
        // What the servers saw: secrets only in the header, or in the POST body of a token request.
        for request in echo.requests + sample.requests {
            let body = String(decoding: request.body, as: UTF8.self)
            for secret in secrets {
                let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
                #expect(!request.target.contains(secret) && !request.target.contains(encoded), "a secret in an address")
                if body.contains(secret) || body.contains(encoded) {
                    #expect(request.method == "POST" && ["/generateToken", "/oauth2/token", "/oauth2/revokeToken"].contains { request.path.hasSuffix($0) })
                }
                for (name, value) in request.headers where value.contains(secret) {
                    #expect(name == "x-esri-authorization", "a secret in the \(name) header")
                }
            }
        }
    }

    /// The browser (and any other child) starts without the token or key in its environment.
    @Test func theBrowserNeverInheritsTheToken() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-child-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let sample = try SampleFixture.start()
        defer { sample.stop() }
        let browser = home + "/browser", seen = home + "/environment"
        // Writes its environment, then answers with another state so the sign-in ends at once.
        try """
            #!/bin/sh
            env > "\(seen)"
            redirect=$(printf '%s' "$1" | sed -n 's/.*redirect_uri=\\([^&]*\\).*/\\1/p' | sed 's/%3A/:/g; s/%2F/\\//g')
            curl -s -o /dev/null "$redirect?code=x&state=other"
            """.write(toFile: browser, atomically: true, encoding: .utf8)
        chmod(browser, 0o755)
        let result = try await CLI.runAsync(["auth", "login", "--portal", sample.baseURL.absoluteString, "--client-id", "app"],
                                            environment: ["XDG_CONFIG_HOME": home + "/config", "BROWSER": browser,
                                                          "MAPBOOK_TOKEN": "secret-token-1234", "MAPBOOK_API_KEY": "secret-key-5678"])
        #expect(result.status == 4)
        let environment = try String(contentsOfFile: seen, encoding: .utf8)
        #expect(environment.contains("PATH=") && !environment.contains("secret-token-1234") && !environment.contains("secret-key-5678"))
    }
}

import Foundation
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook auth` against the sample portal: a password's sign-in, OAuth through the browser (a
/// script standing in for it), status, sign-out; and the token found nowhere but in headers.
@Suite("mapbook auth", .serialized)
struct AuthCommandTests {
    let server: SamplePortal
    let config: String
    var portal: String { server.baseURL.absoluteString }

    init() throws {
        server = try SampleFixture.start()
        config = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-auth-\(UUID())").path
    }

    var environment: [String: String] { ["XDG_CONFIG_HOME": config] }

    func token() throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: config + "/mapbook/credentials.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return try #require((json.first?["tokens"] as? [String: Any])?["accessToken"] as? String)
    }

    @Test func aPasswordSignInOpensThePrivateWebMapAndTheTokenIsOnlyEverInHeaders() async throws {
        let dataDir = config + "/data"
        defer { try? FileManager.default.removeItem(atPath: config) }
        var outputs: [String] = []
        func run(_ arguments: [String], input: String? = nil) async throws -> CLIResult {
            let result = try await CLI.runAsync(arguments, environment: environment, input: input)
            outputs += [result.stdout, result.stderr]
            return result
        }
        let wrong = try await run(["auth", "login", "--portal", portal, "--username", "demo", "--password-stdin"], input: "guess\n")
        #expect(wrong.status == 4 && wrong.stderr == "mapbook: 127.0.0.1 did not accept that username and password.\n")
        let login = try await run(["auth", "login", "--portal", portal, "--username", "demo", "--password-stdin"], input: "mapbook-demo\n")
        #expect(login.status == 0 && login.stdout == "Signed in to 127.0.0.1 as demo.\n", "\(login.stderr)")
        let token = try token()

        let info = try await run(["info", SampleCatalog.protectedID, "--portal", portal, "--json"])
        #expect(info.status == 0 && info.stdout.contains("Explore Maine (staff)"), "\(info.stderr)")
        let areas = try await run(["areas", "--portal", portal, "--webmap", SampleCatalog.protectedID, "--data-dir", dataDir, "--json"])
        #expect(areas.status == 0, "\(areas.stderr)")
        let status = try await run(["auth", "status", "--portal", portal, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["user"] as? String == "demo" && json["method"] as? String == "password" && json["signedIn"] as? Bool == true)
        #expect((json["keptIn"] as? String)?.hasSuffix("credentials.json") == true)
        let logout = try await run(["auth", "logout", "--portal", portal])
        #expect(logout.stdout == "Signed out of 127.0.0.1.\n")
        let after = try await run(["info", SampleCatalog.protectedID, "--portal", portal])
        #expect(after.status == 1 && after.stderr.contains("Sign in: mapbook auth login"))
        let none = try await run(["auth", "status", "--portal", portal])
        #expect(none.status == 4 && none.stdout.hasPrefix("Not signed in to 127.0.0.1."))

        // The token: in no output, no file but the credentials (now gone), no address the portal saw.
        #expect(!outputs.contains { $0.contains(token) })
        let files = FileManager.default.enumerator(atPath: config)?.compactMap { $0 as? String } ?? []
        for file in files {
            guard let data = FileManager.default.contents(atPath: config + "/" + file) else { continue }
            #expect(!String(decoding: data, as: UTF8.self).contains(token), "\(file) holds the token")
        }
        let carried = server.requests.filter { $0.headers["x-esri-authorization"] == "Bearer \(token)" }
        #expect(!carried.isEmpty)
        #expect(!server.requests.contains { $0.target.contains(token) || String(decoding: $0.body, as: UTF8.self).contains(token) })
    }

    @Test func oauthThroughTheBrowserKeepsARenewableSignInThatSignOutRevokes() async throws {
        defer { try? FileManager.default.removeItem(atPath: config) }
        // The browser: a script that approves as the demo user and follows the redirect back.
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let browser = config + "/browser"
        try """
            #!/bin/sh
            page=$(curl -s "$1")
            field() { printf '%s' "$page" | sed -n "s/.*name=\\"$1\\" value=\\"\\([^\\"]*\\)\\".*/\\1/p" | head -n 1; }
            curl -s -L -o /dev/null --data-urlencode "client_id=$(field client_id)" --data-urlencode "redirect_uri=$(field redirect_uri)" \
              --data-urlencode "state=$(field state)" --data-urlencode "code_challenge=$(field code_challenge)" \
              -d username=demo -d password=mapbook-demo "${1%%/sharing/*}/sharing/rest/oauth2/authorize/approve"
            """.write(toFile: browser, atomically: true, encoding: .utf8)
        chmod(browser, 0o755)
        var environment = environment
        environment["BROWSER"] = browser
        let noClient = try await CLI.runAsync(["auth", "login", "--portal", portal], environment: environment)
        #expect(noClient.status == 4 && noClient.stderr.contains("needs the client id of an app registered on the portal"))
        let login = try await CLI.runAsync(["auth", "login", "--portal", portal, "--client-id", "mapbookTest"], environment: environment)
        #expect(login.status == 0 && login.stdout.hasSuffix("Signed in to 127.0.0.1 as demo.\n"), "\(login.stdout) \(login.stderr)")
        #expect(login.stdout.contains("/sharing/rest/oauth2/authorize?client_id=mapbookTest"))
        let token = try token()
        let status = try await CLI.runAsync(["auth", "status", "--portal", portal], environment: environment)
        #expect(status.stdout.contains("as demo (OAuth)") && status.stdout.contains("renewable") && !status.stdout.contains(token))
        let info = try await CLI.runAsync(["info", SampleCatalog.protectedID, "--portal", portal], environment: environment)
        #expect(info.status == 0, "\(info.stderr)")
        let logout = try await CLI.runAsync(["auth", "logout", "--portal", portal], environment: environment)
        #expect(logout.status == 0 && server.requests.contains { $0.path.hasSuffix("/oauth2/revokeToken") && $0.method == "POST" })
        #expect(!login.stdout.contains(token) && !login.stderr.contains(token))
    }

    /// A redirect that does not carry this sign-in's `state` (another tab, a forged link) is
    /// refused before any code is exchanged, and nothing is kept.
    @Test func anAnswerWithAnotherStateIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: config) }
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let browser = config + "/browser"
        try """
            #!/bin/sh
            redirect=$(printf '%s' "$1" | sed -n 's/.*redirect_uri=\\([^&]*\\).*/\\1/p' | sed 's/%3A/:/g; s/%2F/\\//g')
            curl -s -o /dev/null "$redirect?code=stolen&state=not-this-one"
            """.write(toFile: browser, atomically: true, encoding: .utf8)
        chmod(browser, 0o755)
        var environment = environment
        environment["BROWSER"] = browser
        let login = try await CLI.runAsync(["auth", "login", "--portal", portal, "--client-id", "mapbookTest"], environment: environment)
        #expect(login.status == 4 && login.stderr.contains("its state differs"), "\(login.stdout) \(login.stderr)")
        #expect(!server.requests.contains { $0.path.hasSuffix("/oauth2/token") }, "no code was exchanged")
        let status = try await CLI.runAsync(["auth", "status", "--portal", portal], environment: environment)
        #expect(status.status == 4, "nothing kept")
    }

    @Test func aCredentialsFileOthersCanReadIsNotUsed() async throws {
        defer { try? FileManager.default.removeItem(atPath: config) }
        let login = try await CLI.runAsync(["auth", "login", "--portal", portal, "--username", "demo", "--password-stdin"],
                                           environment: environment, input: "mapbook-demo\n")
        #expect(login.status == 0)
        chmod(config + "/mapbook/credentials.json", 0o644)
        let info = try await CLI.runAsync(["info", SampleCatalog.protectedID, "--portal", portal], environment: environment)
        #expect(info.status == 1 && info.stderr.contains("can be read by others, so mapbook will not use it"))
    }
}

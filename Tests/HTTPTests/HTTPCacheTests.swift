import Foundation
import Testing
@testable import HTTP

@Suite struct HTTPCacheTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-http-cache-\(UUID())").path

    private func answer(_ body: String, headers: [(String, String)], url: URL) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders(headers), body: Data(body.utf8), url: url)
    }

    @Test func keepsAnAnswerWithItsValidatorsByPathAndQuery() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = HTTPCache(directory: folder)
        let url = URL(string: "https://www.arcgis.com/sharing/rest/content/items/abc?f=json")!
        cache.keep(answer(#"{"id":"abc"}"#, headers: [("ETag", #""v1""#), ("Last-Modified", "Mon, 20 Nov 2023 10:00:00 GMT")], url: url), for: url)
        let entry = try #require(cache.entry(for: url))
        #expect(entry.body == Data(#"{"id":"abc"}"#.utf8))
        #expect(HTTPCache.validators(of: entry).map { "\($0.0): \($0.1)" }
            == [#"If-None-Match: "v1""#, "If-Modified-Since: Mon, 20 Nov 2023 10:00:00 GMT"])
        // Another host's answer for the same path is never this one (nor the other way round).
        #expect(cache.entry(for: URL(string: "http://127.0.0.1:4242/sharing/rest/content/items/abc?f=json")!) == nil)
        // The same origin written with its default port is the same address.
        #expect(cache.entry(for: URL(string: "https://www.arcgis.com:443/sharing/rest/content/items/abc?f=json")!) != nil)
        #expect(cache.entry(for: URL(string: "https://www.arcgis.com/sharing/rest/content/items/abc")!) == nil)
    }

    /// A signed-in answer (a search that finds private web maps) is never the one an anonymous
    /// request is answered with, nor the other way round.
    @Test func signedInAnswersAreKeptApart() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = HTTPCache(directory: folder)
        let url = URL(string: "https://p.example/sharing/rest/search?q=maine&f=json")!
        cache.keep(answer(#"{"results":["private"]}"#, headers: [("ETag", "a")], url: url), for: url, signedIn: true)
        #expect(cache.entry(for: url) == nil)
        #expect(try #require(cache.entry(for: url, signedIn: true)).body == Data(#"{"results":["private"]}"#.utf8))
        cache.keep(answer(#"{"results":[]}"#, headers: [("ETag", "b")], url: url), for: url)
        #expect(cache.entry(for: url)?.etag == "b" && cache.entry(for: url, signedIn: true)?.etag == "a")
        cache.forget(url, signedIn: true)
        #expect(cache.entry(for: url, signedIn: true) == nil && cache.entry(for: url) != nil)
    }

    @Test func neverKeepsWhatItCannotCheckOrMustNotKeep() {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = HTTPCache(directory: folder)
        let url = URL(string: "https://p.example/sharing/rest/self?f=json")!
        cache.keep(answer("{}", headers: [], url: url), for: url)
        #expect(cache.entry(for: url) == nil, "no validator: it could never be asked about")
        cache.keep(answer("{}", headers: [("ETag", "x"), ("Cache-Control", "private, no-store")], url: url), for: url)
        #expect(cache.entry(for: url) == nil)
        let tokened = URL(string: "https://p.example/sharing/rest/self?f=json&token=SECRET")!
        cache.keep(answer("{}", headers: [("ETag", "x")], url: tokened), for: tokened)
        #expect(cache.entry(for: tokened) == nil, "a token in an address never reaches the disk")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(files.allSatisfy { !((try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8)) ?? "").contains("SECRET") })
    }

    @Test func staysWithinItsLimitLeastRecentlyUsedFirst() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = HTTPCache(directory: folder, limit: 20_000)
        let body = String(repeating: "x", count: 3_000)
        let urls = (0..<6).map { URL(string: "https://p.example/item/\($0)")! }
        for (index, url) in urls.enumerated() {
            cache.keep(answer(body, headers: [("ETag", "e\(index)")], url: url), for: url)
            // The first is read again each time: the most recently used, it stays.
            _ = cache.entry(for: urls[0])
            Thread.sleep(forTimeInterval: 0.01)
        }
        let answers = folder + "/anonymous"
        let bytes = try FileManager.default.contentsOfDirectory(atPath: answers)
            .compactMap { try FileManager.default.attributesOfItem(atPath: answers + "/" + $0)[.size] as? Int }.reduce(0, +)
        #expect(bytes <= 10_000)
        #expect(cache.entry(for: urls[0]) != nil)
        #expect(cache.entry(for: urls[1]) == nil)
    }

    /// An answer that came from another origin (a redirect) is not kept for the address asked.
    @Test func keepsOnlyWhatTheAddressesOwnOriginAnswered() {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = HTTPCache(directory: folder)
        let url = URL(string: "https://p.example/sharing/rest/portals/self?f=json")!
        cache.keep(answer("{}", headers: [("ETag", "x")], url: URL(string: "https://other.example/sharing/rest/portals/self?f=json")!), for: url)
        #expect(cache.entry(for: url) == nil)
    }

    /// A validator over 1 KiB would make every later request too large for the server (HTTP 431).
    @Test func hugeValidatorsAreNotKept() {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = HTTPCache(directory: folder)
        let url = URL(string: "https://p.example/sharing/rest/portals/self?f=json")!
        cache.keep(answer("{}", headers: [("ETag", String(repeating: "e", count: 100_000))], url: url), for: url)
        #expect(cache.entry(for: url) == nil)
        cache.keep(answer("{}", headers: [("ETag", String(repeating: "e", count: 1000))], url: url), for: url)
        #expect(cache.entry(for: url) != nil)
    }

    /// Kept answers may list private items: 0600 files in 0700 folders, and signing out forgets
    /// every signed-in answer while the anonymous ones stay.
    @Test func answersArePrivateAndSigningOutForgetsTheSignedInOnes() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = HTTPCache(directory: folder)
        let url = URL(string: "https://p.example/sharing/rest/search?q=x&f=json")!
        cache.keep(answer("{}", headers: [("ETag", "a")], url: url), for: url)
        cache.keep(answer(#"{"private":1}"#, headers: [("ETag", "b")], url: url), for: url, signedIn: true)
        let walker = try #require(FileManager.default.enumerator(atPath: folder))
        var seen = 0
        while let name = walker.nextObject() as? String {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.posixPermissions] as? Int)
            let isFolder = (walker.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory
            #expect(mode == (isFolder ? 0o700 : 0o600), "\(name): \(String(mode, radix: 8))")
            seen += 1
        }
        #expect(seen >= 4)
        cache.forgetSignedIn()
        #expect(cache.entry(for: url, signedIn: true) == nil && cache.entry(for: url) != nil)
    }
}

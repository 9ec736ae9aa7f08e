import ArcGISPortal
import Foundation
import HTTP
import PortalFixtures
import SamplePortal
import Testing
import ArcGISModel

/// Finding web maps a page at a time, as the Maps card and `mapbook maps` do: your content's root
/// then each folder, a group's, a search's; the cursor says where the next page starts.
@Suite("Web maps, page by page")
struct WebMapPagingTests {
    let server: SamplePortal
    let client: PortalClient

    init() async throws {
        server = try SampleFixture.start()
        let anonymous = PortalClient(portal: server.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
        let tokens = try await anonymous.generateToken(username: "demo", password: "mapbook-demo")
        client = PortalClient(portal: server.baseURL, session: SignInSession(token: tokens.accessToken),
                              http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
    }

    @Test func aSearchIsReadTwoAtATimeUntilNothingIsLeft() async throws {
        var pages: [[String]] = []
        var cursor: WebMapCursor? = .search("Maine")
        while let next = cursor {
            let page = try await client.webMaps(from: next, atLeast: 2, pageSize: 2)
            pages.append(page.maps.map(\.item.title))
            cursor = page.next
        }
        #expect(pages.map(\.count) == [2, 2, 2, 2], "\(pages)")
        let starts = server.requests.filter { $0.target.contains("/search?") }.compactMap {
            URLComponents(string: $0.target)?.queryItems?.first { $0.name == "start" }?.value
        }
        #expect(starts == ["1", "3", "5", "7"])
        // Every page asked only for web maps.
        #expect(server.requests.filter { $0.target.contains("/search?") }.allSatisfy { $0.target.contains("Web%20Map") || $0.target.contains("Web+Map") })
    }

    @Test func yourContentIsTheRootThenEachFolderOnePageAtATime() async throws {
        let cursor = try await client.myContent()
        let first = try await client.webMaps(from: cursor, atLeast: 1, pageSize: 1)
        #expect(first.maps.map(\.item.title) == ["Explore Maine (staff)"] && first.maps[0].place == nil)
        // The root read, its two folders follow.
        let next = try #require(first.next)
        #expect(next.sources.count == 2)
        let rest = try await client.allWebMaps(from: next)
        #expect(rest.map(\.item.title) == ["Explore Maine"] && rest.map(\.place) == ["Field work"])
        let folders = server.requests.filter { $0.target.contains("/content/users/demo/") }
        #expect(folders.count == 2, "each folder asked once: \(folders.map(\.target))")
    }

    @Test func aGroupsWebMapsNameTheGroup() async throws {
        let groups = try await client.myGroups()
        let found = try await client.allWebMaps(from: groups)
        #expect(Set(found.map(\.item.id.rawValue)) == [SampleCatalog.webMapID, SampleCatalog.protectedID])
        #expect(found.allSatisfy { $0.place == "Field Crew" })
    }
}

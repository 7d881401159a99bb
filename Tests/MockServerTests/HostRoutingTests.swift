import Foundation
import Testing
@testable import MockServer
@testable import MockCore

/// Over the wire, the `Host` a client sends chooses the API: an API's own host (or one
/// mapped to it) gets that API's paths alone, the mock's own address gets every API's.
@Suite struct HostRoutingTests {
    private func status(_ server: TestServer, _ path: String, host: String) async throws -> Int {
        let connection = try RawConnection(port: server.port)
        connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
        return try #require(await connection.read().responses.first).status
    }

    @Test func anAPIsOwnHostGetsThatAPIAlone() async throws {
        try await withServer { server in
            let page = "/api/products?page_no=1&items_per_page=2"
            let onItsHost = try await status(server, page, host: "market-training.yagom-academy.kr")
            let otherAPIOnItsHost = try await status(server, "/menu", host: "market-training.yagom-academy.kr")
            let caseAndPort = try await status(server, "/healthChecker", host: "OpenMarket.Yagom-Academy.kr:443")
            let menuHere = try await status(server, "/menu", host: "127.0.0.1:\(server.port)")
            let pageHere = try await status(server, page, host: "localhost")
            let statuses: [Int] = [onItsHost, otherAPIOnItsHost, caseAndPort, menuHere, pageHere]
            #expect(statuses == [200, 404, 200, 200, 200])
            // The journal keeps the host each request named.
            let hosts = server.engine.journal.entries().map { $0.request.headers["Host"] ?? "" }
            #expect(hosts.first == "market-training.yagom-academy.kr")
        }
    }
}

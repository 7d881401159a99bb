import NIOHPACK
import NIOHTTP1
import Testing
@testable import MockServerTLS

/// `HTTP2RequestDecoder.requestHead(_:)`: the request a stream's header block makes, as
/// HTTP/1.1's handler reads it. Pure logic on a header block; `HTTP2Tests` sends the same
/// over sockets with curl and nghttp.
@Suite struct HTTP2RequestHeadTests {
    private func fields(_ head: HTTPRequestHead) -> [String] {
        head.headers.map { "\($0.name): \($0.value)" }
    }

    @Test func authorityBecomesTheFirstField() throws {
        let block: HPACKHeaders = [":method": "GET", ":scheme": "https", ":authority": "localhost:8443", ":path": "/menu?x=1",
                                   "accept": "*/*", "user-agent": "test"]
        let head = try #require(HTTP2RequestDecoder.requestHead(block))
        #expect(head.method == .GET && head.uri == "/menu?x=1" && head.version == .http2)
        #expect(fields(head) == ["host: localhost:8443", "accept: */*", "user-agent: test"])
    }

    @Test func theClientsOwnHostWinsOverTheAuthority() throws {
        let block: HPACKHeaders = [":method": "POST", ":authority": "from-authority", ":path": "/order",
                                   "accept": "*/*", "host": "from-host", "content-type": "application/json"]
        let head = try #require(HTTP2RequestDecoder.requestHead(block))
        #expect(fields(head) == ["accept: */*", "host: from-host", "content-type: application/json"])
    }

    @Test func cookieCrumbsAreOneFieldAgain() throws {
        let block: HPACKHeaders = [":method": "GET", ":authority": "a", ":path": "/", "cookie": "a=1", "accept": "*/*", "cookie": "b=2"]
        let head = try #require(HTTP2RequestDecoder.requestHead(block))
        #expect(fields(head) == ["host: a", "accept: */*", "cookie: a=1; b=2"])
    }

    @Test func aBlockWithoutAPathIsNoRequestHere() {
        // A CONNECT names an authority and no path: nothing here serves it.
        let block: HPACKHeaders = [":method": "CONNECT", ":authority": "example.com:443"]
        #expect(HTTP2RequestDecoder.requestHead(block) == nil)
    }

    @Test func namesOfTheSameLengthAreNotMistaken() throws {
        // A name as long as "cookie", "host", ":path", ":method" or ":authority" is only
        // that field when it is that name: "hast" taken for a Host would drop the one made
        // from :authority; ":authorizy" taken for :authority would replace it.
        let block: HPACKHeaders = [":method": "GET", ":authority": "a", ":path": "/p", ":patx": "q", ":methox": "y",
                                   ":authorizy": "z", "origin": "o", "hast": "h"]
        let head = try #require(HTTP2RequestDecoder.requestHead(block))
        #expect(head.method == .GET && head.uri == "/p")
        #expect(fields(head) == ["host: a", "origin: o", "hast: h"])
    }
}

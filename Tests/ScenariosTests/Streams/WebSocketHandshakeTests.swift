import Foundation
import Testing
@testable import MockCore

/// What an opening handshake is (RFC 6455 §4.2.1): an upgrade, none (426), or a malformed
/// one (400 with the reason).
@Suite struct WebSocketHandshakeTests {
    static let good: HeaderFields = ["Upgrade": "websocket", "Connection": "keep-alive, Upgrade",
                                     "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"]

    static func request(_ method: String = "GET", changing name: String? = nil, to value: String? = nil, adding extra: (String, String)? = nil) -> MockRequest {
        var headers = good
        if let name {
            if let value { headers.set(name, value) } else { headers.remove(name) }
        }
        if let extra { headers.add(extra.0, extra.1) }
        return MockRequest(method: method, uri: "/chat", headers: headers)
    }

    @Test func aWellFormedHandshakeIsAnUpgrade() {
        #expect(WebSocketHandshake.check(Self.request()) == .upgrade)
    }

    @Test func noUpgradeOrAnotherVersionIsNotAnUpgrade() {
        #expect(WebSocketHandshake.check(MockRequest(method: "GET", uri: "/chat")) == .notAnUpgrade)
        #expect(WebSocketHandshake.check(Self.request(changing: "Upgrade", to: "h2c")) == .notAnUpgrade)
        #expect(WebSocketHandshake.check(Self.request(changing: "Sec-WebSocket-Version", to: "8")) == .notAnUpgrade)
    }

    static let malformed: [(MockRequest, String)] = [
        (request("POST"), "opens with a GET"),
        (request(changing: "Connection", to: "keep-alive"), "Connection: Upgrade"),
        (request(changing: "Sec-WebSocket-Key", to: nil), "needs a Sec-WebSocket-Key"),
        (request(changing: "Sec-WebSocket-Key", to: "a2V5"), "16 random bytes"),
        (request(adding: ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")), "not 2"),
    ]

    @Test(arguments: malformed.indices)
    func aMalformedHandshakeSaysWhatIsWrong(_ index: Int) {
        let (request, words) = Self.malformed[index]
        guard case .malformed(let reason) = WebSocketHandshake.check(request) else {
            Issue.record("\(words): not taken for malformed")
            return
        }
        #expect(reason.contains(words), "\(reason)")
        let plan = WebSocketHandshake.malformed(reason)
        #expect(plan.status == 400)
        #expect(JSONValue(parsing: plan.body)?["reason"] == .string(reason))
    }
}

import Testing
@_spi(Fuzzing) @testable import MockServer
import MockCore

/// `ProxyTarget` as a value: what parses, what it parses to, and the round trip through
/// `authority` that the proxy relies on when it names a target in a reason or a `Host`.
@Suite struct ProxyTargetTests {
    static let parsed: [(target: String, host: String, port: Int)] = [
        ("market-training.yagom-academy.kr:443", "market-training.yagom-academy.kr", 443),
        ("OpenMarket.Yagom-Academy.KR:80", "openmarket.yagom-academy.kr", 80),
        ("127.0.0.1:8080", "127.0.0.1", 8080),
        ("[::1]:443", "::1", 443),
        ("[FE80::A:b]:00443", "fe80::a:b", 443),
        ("[::ffff:127.0.0.1]:1", "::ffff:127.0.0.1", 1),
        ("internal_name.:65535", "internal_name", 65535),   // a trailing dot names the same host
    ]

    @Test(arguments: parsed)
    func aConnectTargetParses(_ target: String, _ host: String, _ port: Int) throws {
        let parsed = try ProxyTarget.connect(target).get()
        #expect(parsed == ProxyTarget(host: host, port: port))
        #expect(ProxyTarget.connect(parsed.authority) == .success(parsed), "\(parsed.authority)")
    }

    @Test(arguments: [
        ("http://user:pw@OpenMarket.yagom-academy.kr/api/products?page_no=1", "openmarket.yagom-academy.kr", 80, "/api/products?page_no=1"),
        ("HTTPS://[::1]?q", "::1", 443, "/?q"),
        ("http://a.example@b.example:8080#top", "b.example", 8080, "/"),
    ])
    func anAbsoluteTargetParses(_ target: String, _ host: String, _ port: Int, _ originForm: String) throws {
        let absolute = try #require(ProxyTarget.absolute(target))
        let parsed = try absolute.target.get()
        #expect(parsed == ProxyTarget(host: host, port: port))
        #expect(absolute.originForm == originForm)
        #expect(ProxyTarget.connect(parsed.authority) == .success(parsed), "\(parsed.authority)")
    }

    /// Authorities built from the bytes that matter to the parser (brackets, colons, `@`,
    /// digits, hex, dots, non-ASCII), mostly shaped like `host:port` or `[v6]:port`: every
    /// one that parses round-trips through `authority`, by `connect` and inside an
    /// absolute-form target.
    @Test func everyParsedTargetRoundTripsThroughItsAuthority() {
        let hostPieces = ["a", "F", "fe80", "::", ":", "1", "127.0.0.1", ".", "-", "_", "example", "é", "\u{212A}", "\u{0301}",
                          "%25", "@", "[", "]", " ", "/"]
        let ports = ["", "0", "1", "443", "65535", "65536", "00080", "99999999", "8a", "\u{0661}"]
        var random = SeededRandom(seed: 39)
        func pick(_ pieces: [String]) -> String { pieces[Int(random.next() % UInt64(pieces.count))] }
        var parsedCount = 0, ipv6Count = 0
        // Checked in plain code and reported once: 40,000 `#expect`s held a thread of the
        // test pool for a minute in a debug build, and starved the tests beside this one.
        var broken: [String] = []
        for _ in 0..<20_000 {
            var host = (0..<(Int(random.next() % 4) + 1)).map { _ in pick(hostPieces) }.joined()
            if random.next() % 3 == 0 { host = "[" + host + "]" }
            let candidate = random.next() % 4 == 0 ? host : host + ":" + pick(ports)
            for result in [ProxyTarget.connect(candidate), ProxyTarget.absolute("http://" + candidate + "/")?.target] {
                guard case .success(let target) = result else { continue }
                parsedCount += 1
                if target.host.contains(":") { ipv6Count += 1 }
                let roundTrips = ProxyTarget.connect(target.authority) == .success(target)
                let wellFormed = (1...65535).contains(target.port) && !target.host.isEmpty && target.host == target.host.lowercased()
                if !(roundTrips && wellFormed), broken.count < 10 { broken.append("\(candidate.debugDescription) → \(target.authority)") }
            }
        }
        #expect(broken.isEmpty, "\(broken)")
        // The property held over real targets, IPv6 ones among them.
        #expect(parsedCount > 1_000 && ipv6Count > 50, "\(parsedCount) parsed, \(ipv6Count) IPv6")
    }
}

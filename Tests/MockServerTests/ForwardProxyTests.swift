import Foundation
import MockFixtures
import MockServer
import MockServerTLS
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The forward proxy (`ServerConfiguration.forwardProxy`): real hosts answered by the APIs
/// that name them, over HTTP/1.1 and HTTP/2, by real clients (curl, openssl, URLSession);
/// other hosts refused or passed through; malformed and unauthorized proxy requests refused.
@Suite struct ForwardProxyTests {
    static let page = "/api/products?page_no=1&items_per_page=2"

    /// A server with a forward proxy whose tunnels get certificates from the trusted CA.
    static func start(passThrough: Bool = false, allowedPorts: Set<Int> = [443, 80], hostMap: [String: String] = [:],
                      adminToken: String? = nil, scenario: Scenario? = nil) async throws -> TestServer {
        let ca = try await TestCA.trusted()
        let engine = try MockEngine(configuration: EngineConfiguration(
            fixturesDirectory: MockFixtures.directory, hostMap: hostMap, journalResponseBodyLimit: 64 * 1024,
            extraScenarios: scenario.map { [$0] } ?? [], scenario: scenario?.name ?? "happy-path"))
        let proxy = ForwardProxy(passThrough: passThrough, allowedTunnelPorts: allowedPorts,
                                 secureTransport: TLSSettings(caDirectory: ca.directory))
        let started = try await ServerLoops.shared.start {
            MockHTTPServer(engine: engine, configuration: ServerConfiguration(adminToken: adminToken, forwardProxy: proxy), group: $0)
        }
        return TestServer(server: started.server, address: started.address, lease: started.lease)
    }

    static func curl(_ server: TestServer, _ arguments: [String]) async throws -> Tool.Result {
        let proxy = try #require(server.address.proxyURL)
        return try await Tool.run("curl", ["-sS", "-m", "30", "-x", proxy, "--cacert", try await TestCA.trusted().certificateURL.path] + arguments)
    }

    /// One proxy request on a raw connection, and what came back before the proxy closed it.
    /// `headOnly`: stop at the end of the first head (a tunnel's 200 is followed by nothing).
    static func raw(_ server: TestServer, _ request: String, headOnly: Bool = false) async throws -> RawResponse? {
        let connection = try RawConnection(port: try #require(server.address.proxyPort))
        connection.send(request)
        return await connection.read(timeout: 10, until: { headOnly && $0.range(of: Data("\r\n\r\n".utf8)) != nil }).responses.first
    }

    static func reason(_ response: RawResponse?) -> String {
        guard let body = response?.body, let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return "" }
        return json["reason"] as? String ?? ""
    }

    @Test(.requires(.curl), arguments: ["--http1.1", "--http2"])
    func curlGetsTheMockPageForTheRealHost(_ version: String) async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let result = try await Self.curl(server, [version, "-w", "\n%{http_version} %{http_code}",
                                                  "https://market-training.yagom-academy.kr" + Self.page])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.last == (version == "--http2" ? "2 200" : "1.1 200"), "\(result.stdout)")
        let page = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect((page["pages"] as? [Any])?.count == 2, "\(page.keys)")
        // Absolute URLs in the answer keep the host the app asked for.
        #expect(result.stdout.contains("https://market-training.yagom-academy.kr/"), "\(result.stdout.prefix(400))")
        let entries = server.engine.journal.entries()
        #expect(entries.contains { $0.request.method == "CONNECT" && $0.answeredBy == "proxy.connect" && $0.status == 200 })
        let get = try #require(entries.first { $0.request.path == "/api/products" })
        #expect(get.request.host == "market-training.yagom-academy.kr")
        #expect(get.json["host"] == .string("market-training.yagom-academy.kr"))
        #expect(get.answeredBy == "openmarket.page")
    }

    /// `--map`: any host, on any port, by any scheme: through a TLS tunnel, a plain tunnel,
    /// and an absolute-form request; a scenario's answer applies through each.
    @Test(.requires(.curl)) func aMappedHostOnAnyPortAndScheme() async throws {
        let scenario = Scenario(name: "proxy-closed", rules: [Rule("closed", .get("/categories"), always: .status(503, json: ["closed": true]))])
        let server = try await Self.start(hostMap: ["api.example.test": "restaurant"], scenario: scenario)
        defer { Task { await server.stop() } }
        let result = try await Self.curl(server, [
            "-o", "/dev/null", "-w", "%{http_code}\n", "https://api.example.test:8443/menu",
            "-o", "/dev/null", "-w", "%{http_code}\n", "http://api.example.test:8090/menu",
            "-o", "/dev/null", "-w", "%{http_code}\n", "https://API.example.test/categories",
            "--next", "-x", try #require(server.address.proxyURL), "-p", "-o", "/dev/null", "-w", "%{http_code}\n",
            "http://api.example.test/menu",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n") == ["200", "200", "503", "200"], "\(result.stdout)")
        let hosts = server.engine.journal.entries().filter { $0.request.method != "CONNECT" }.map { $0.request.host.lowercased() }.sorted()
        #expect(hosts == ["api.example.test", "api.example.test", "api.example.test:8090", "api.example.test:8443"], "\(hosts)")
    }

    /// The certificate names what the client asked for in its ClientHello (SNI), not only
    /// the `CONNECT` target.
    @Test(.requires(.openssl)) func theCertificateFollowsTheServerName() async throws {
        let server = try await Self.start(hostMap: ["a.example.test": "restaurant", "b.example.test": "restaurant"])
        defer { Task { await server.stop() } }
        let port = try #require(server.address.proxyPort)
        let result = try await Tool.run("openssl", ["s_client", "-proxy", "127.0.0.1:\(port)", "-connect", "a.example.test:443",
                                                    "-servername", "b.example.test", "-CAfile", try await TestCA.trusted().certificateURL.path,
                                                    "-verify_return_error", "-verify_hostname", "b.example.test"], input: "")
        #expect(result.stdout.contains("Verify return code: 0 (ok)"), "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("b.example.test"), "\(result.stdout)")
        // A name the mock does not answer gets the tunnel's certificate, not one of its own.
        let other = try await Tool.run("openssl", ["s_client", "-proxy", "127.0.0.1:\(port)", "-connect", "a.example.test:443",
                                                   "-servername", "evil.example.test", "-CAfile", try await TestCA.trusted().certificateURL.path,
                                                   "-verify_return_error", "-verify_hostname", "a.example.test"], input: "")
        #expect(other.stdout.contains("Verify return code: 0 (ok)"), "\(other.stdout)\(other.stderr)")
        #expect(!other.stdout.contains("evil.example.test"), "\(other.stdout)")
    }

    /// A client that does not trust the local CA refuses the handshake: the journal says
    /// so, with what to do, rather than a tunnel and then nothing.
    @Test(.requires(.openssl)) func aClientThatDoesNotTrustTheCAIsJournaled() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("other-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: other) }
        let otherCA = try LocalCA.loadOrCreate(in: other).ca
        let result = try await Tool.run("openssl", ["s_client", "-proxy", "127.0.0.1:\(try #require(server.address.proxyPort))",
                                                    "-connect", "market-training.yagom-academy.kr:443", "-CAfile", otherCA.certificateURL.path,
                                                    "-verify_return_error"], input: "")
        #expect(result.status != 0, "\(result.stdout)")
        // The server reads the client's alert after openssl exits, at its own pace.
        _ = await eventually { server.engine.journal.entries().contains { $0.status == 495 } }
        let failed = server.engine.journal.entries().first { $0.status == 495 }
        let entry = try #require(failed, "\(server.engine.journal.entries().map { "\($0.request.method) \($0.status)" })")
        #expect(entry.request.path == "market-training.yagom-academy.kr")
        #expect(entry.responseReason?.contains("mock-server ca --simulator booted") == true, "\(entry.responseReason ?? "")")
    }

    @Test func anUnmappedHostIsRefusedWithAReason() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let tunnel = try await Self.raw(server, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        #expect(tunnel?.status == 403)
        #expect(Self.reason(tunnel).contains("example.com is not a host the mock answers to"), "\(Self.reason(tunnel))")
        #expect(Self.reason(tunnel).contains("--pass-through"))
        let absolute = try await Self.raw(server, "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(absolute?.status == 403)
        #expect(Self.reason(absolute).contains("--map example.com=API"), "\(Self.reason(absolute))")
        let refused = server.engine.journal.entries().filter { $0.answeredBy == nil && $0.request.headers["Host"]?.hasPrefix("example.com") == true }
        #expect(refused.map(\.status) == [403, 403])
    }

    /// An absolute-form target's scheme and host are case-insensitive (RFC 3986 3.1, 3.2.2):
    /// in upper case they get the page for the target's path, as in lower case.
    @Test func anAbsoluteFormTargetInUpperCaseGetsItsPath() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let response = try await Self.raw(server, "GET HTTP://OpenMarket.Yagom-Academy.KR\(Self.page) HTTP/1.1\r\n"
                                                  + "Host: openmarket.yagom-academy.kr\r\nConnection: close\r\n\r\n")
        #expect(response?.status == 200)
        let entry = server.engine.journal.entries().first
        #expect(entry?.request.path == "/api/products")
        #expect(entry?.answeredBy == "openmarket.page")
        #expect(MockRequest(method: "GET", uri: "hTTpS://h.example?q=1").path == "/")
    }

    /// A fragment is no part of a request target's path or query (RFC 3986 3.5), wherever
    /// it stands: the proxy and the engine read the same path from the target.
    @Test func aFragmentInAnAbsoluteFormTargetIsNoPartOfItsPath() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let response = try await Self.raw(server, "GET http://openmarket.yagom-academy.kr/healthChecker#top?page_no=9 HTTP/1.1\r\n"
                                                  + "Host: openmarket.yagom-academy.kr\r\nConnection: close\r\n\r\n")
        #expect(response?.status == 200)
        let entry = server.engine.journal.entries().first
        #expect(entry?.request.path == "/healthChecker")
        #expect(entry?.request.query.isEmpty == true)
        let request = MockRequest(method: "GET", uri: "/menu#section?category=soups")
        #expect(request.path == "/menu" && request.query.isEmpty)
    }

    @Test(.requires(.curl)) func passThroughTunnelsAndForwardsToALocalUpstream() async throws {
        let upstream = try await TestServer.start()
        defer { Task { await upstream.stop() } }
        let server = try await Self.start(passThrough: true, allowedPorts: [upstream.port])
        defer { Task { await server.stop() } }
        let target = "http://127.0.0.1:\(upstream.port)"
        let result = try await Self.curl(server, [
            "-o", "/dev/null", "-w", "%{http_code}\n", "-X", "POST", "-H", "Content-Type: application/json",
            "--data", #"{"menuIds":[1]}"#, target + "/order",
            "--next", "-x", try #require(server.address.proxyURL), "-p", "-o", "/dev/null", "-w", "%{http_code}\n", target + "/menu",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n") == ["200", "200"], "\(result.stdout)")
        // The upstream answered both, the forwarded one in origin-form with its body.
        let answered = upstream.engine.journal.entries()
        #expect(answered.map(\.request.path).sorted() == ["/menu", "/order"])
        #expect(answered.first { $0.request.path == "/order" }?.request.body.data == Data(#"{"menuIds":[1]}"#.utf8))
        let proxied = server.engine.journal.entries().compactMap(\.answeredBy).sorted()
        #expect(proxied == ["proxy.forward", "proxy.tunnel"], "\(proxied)")
    }

    /// A forwarded request is one request: what the client pipelines after it does not
    /// reach the upstream, and the proxy's credential is neither passed on nor journaled.
    @Test func aForwardedRequestIsOneRequest() async throws {
        let upstream = try await TestServer.start()
        defer { Task { await upstream.stop() } }
        let server = try await Self.start(passThrough: true, allowedPorts: [upstream.port], adminToken: "s3cret")
        defer { Task { await server.stop() } }
        let authority = "127.0.0.1:\(upstream.port)"
        let credential = "Proxy-Authorization: Basic \(Data("me:s3cret".utf8).base64EncodedString())\r\n"
        let response = try await Self.raw(server, "GET http://\(authority)/menu HTTP/1.1\r\nHost: \(authority)\r\n\(credential)\r\n"
                                          + "GET http://\(authority)/categories HTTP/1.1\r\nHost: \(authority)\r\n\(credential)\r\n")
        #expect(response?.status == 200)
        let answered = upstream.engine.journal.entries()
        #expect(answered.map(\.request.path) == ["/menu"])
        #expect(answered.first?.request.headers["Proxy-Authorization"] == nil)
        #expect(server.engine.journal.entries().allSatisfy { $0.request.headers["Proxy-Authorization"] == nil })
    }

    /// A trailing dot names the same host; an upper-case scheme is a scheme.
    @Test func namesAreReadAsHostsAreNamed() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let tunnel = try await Self.raw(server, "CONNECT market-training.yagom-academy.kr.:443 HTTP/1.1\r\n\r\n", headOnly: true)
        #expect(tunnel?.status == 200)
        let absolute = try await Self.raw(server, "GET HTTP://Market-Training.yagom-academy.kr/api/products?page_no=1&items_per_page=1 HTTP/1.1\r\n"
                                          + "Host: market-training.yagom-academy.kr\r\nConnection: close\r\n\r\n")
        #expect(absolute?.status == 200)
        let body = String(decoding: absolute?.body ?? Data(), as: UTF8.self)
        #expect(body.contains("\"items_per_page\":1"), "\(body.prefix(200))")
    }

    /// A proxy other machines reach passes nothing through to this machine's own addresses.
    @Test func anExposedProxyPassesNothingToThisMachine() async throws {
        let upstream = try await TestServer.start()
        defer { Task { await upstream.stop() } }
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
        let server = MockHTTPServer(engine: engine, configuration: ServerConfiguration(
            host: "0.0.0.0", forwardProxy: ForwardProxy(passThrough: true, allowedTunnelPorts: [upstream.port], openToNetwork: true)))
        let address = try await server.start()
        defer { Task { await server.stop() } }
        let connection = try RawConnection(port: try #require(address.proxyPort))
        connection.send("CONNECT localhost:\(upstream.port) HTTP/1.1\r\n\r\n")
        let response = await connection.read().responses.first
        #expect(response?.status == 403)
        #expect(Self.reason(response).contains("this machine"), "\(Self.reason(response))")
        #expect(upstream.engine.journal.entries().isEmpty)
    }

    @Test func aTunnelToAPortNotAllowedIsRefused() async throws {
        let server = try await Self.start(passThrough: true)
        defer { Task { await server.stop() } }
        let response = try await Self.raw(server, "CONNECT 127.0.0.1:25 HTTP/1.1\r\nHost: 127.0.0.1:25\r\n\r\n")
        #expect(response?.status == 403)
        #expect(Self.reason(response).contains("Port 25 is not allowed"), "\(Self.reason(response))")
        #expect(Self.reason(response).contains("--proxy-allow-port 25"))
    }

    static let malformed: [(request: String, says: String)] = [
        ("CONNECT example.com HTTP/1.1\r\n\r\n", "has no port"),
        ("CONNECT example.com:99999 HTTP/1.1\r\n\r\n", "between 1 and 65535"),
        ("CONNECT example.com:0 HTTP/1.1\r\n\r\n", "between 1 and 65535"),
        ("CONNECT :443 HTTP/1.1\r\n\r\n", "names no host"),
        ("CONNECT [::1:443 HTTP/1.1\r\n\r\n", "no closing ]"),
        ("CONNECT exa$mple.com:443 HTTP/1.1\r\n\r\n", "is not a host name"),
        ("GET http:///menu HTTP/1.1\r\nHost: x\r\n\r\n", "names no host"),
        ("GET http://example.com:http/ HTTP/1.1\r\nHost: x\r\n\r\n", "is not a number"),
        ("CONNECT\r\n\r\n", "Malformed HTTP request"),
    ]

    @Test(arguments: malformed)
    func aMalformedProxyRequestGets400(_ request: String, _ says: String) async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let response = try await Self.raw(server, request)
        #expect(response?.status == 400, "\(request)")
        #expect(Self.reason(response).contains(says), "\(request): \(Self.reason(response))")
        #expect(server.engine.journal.entries().contains { $0.status == 400 }, "journaled")
    }

    @Test func offLoopbackTheProxyNeedsATokenOrAnExplicitFlag() async throws {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
        let exposed = MockHTTPServer(engine: engine, configuration: ServerConfiguration(host: "0.0.0.0", forwardProxy: ForwardProxy()))
        await #expect(throws: ServerError.exposedProxy(host: "0.0.0.0")) { try await exposed.start() }
        for configuration in [ServerConfiguration(host: "0.0.0.0", adminToken: "s3cret", forwardProxy: ForwardProxy()),
                              ServerConfiguration(host: "0.0.0.0", forwardProxy: ForwardProxy(openToNetwork: true))] {
            let server = MockHTTPServer(engine: engine, configuration: configuration)
            let address = try await server.start()
            #expect(address.proxyPort != nil)
            await server.stop()
        }
    }

    @Test(.requires(.curl)) func withATokenTheProxyAsksForIt() async throws {
        let server = try await Self.start(adminToken: "s3cret")
        defer { Task { await server.stop() } }
        let refused = try await Self.raw(server, "CONNECT market-training.yagom-academy.kr:443 HTTP/1.1\r\n\r\n")
        #expect(refused?.status == 407)
        #expect(refused?.header("Proxy-Authenticate") == "Basic realm=\"mock-server\"")
        let wrong = try await Self.curl(server, ["--proxy-user", "me:guess", "-o", "/dev/null", "-w", "%{http_code}",
                                                 "http://market-training.yagom-academy.kr" + Self.page])
        #expect(wrong.stdout == "407", "\(wrong.stdout) \(wrong.stderr)")
        let result = try await Self.curl(server, ["--proxy-user", "me:s3cret", "-o", "/dev/null", "-w", "%{http_code}",
                                                  "https://market-training.yagom-academy.kr" + Self.page])
        #expect(result.stdout == "200", "\(result.stdout) \(result.stderr)")
    }

    @Test func thePACFileSendsTheMappedHostsToTheProxy() async throws {
        let server = try await Self.start(hostMap: ["api.example.test": "restaurant"])
        defer { Task { await server.stop() } }
        let (data, response) = try await URLSession.shared.data(from: server.url("/__admin/proxy.pac"))
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/x-ns-proxy-autoconfig")
        let pac = String(decoding: data, as: UTF8.self)
        #expect(pac.contains(#"["market-training.yagom-academy.kr","openmarket.yagom-academy.kr","api.example.test"]"#), "\(pac)")
        #expect(pac.contains("return \"PROXY 127.0.0.1:\(try #require(server.address.proxyPort))\""), "\(pac)")
        #expect(pac.contains("return \"DIRECT\""))
        try await withServer { plain in
            let (_, response) = try await URLSession.shared.data(from: plain.url("/__admin/proxy.pac"))
            #expect((response as? HTTPURLResponse)?.statusCode == 404)
        }
    }

    #if os(Linux)
    /// A URLSession client that knows nothing of the mock (`Tests/Clients/ProxyEnvClient.swift`),
    /// run with `https_proxy` set: URLSession on Linux (libcurl) takes it, and trusts the CA
    /// from the system store (`TestCA`).
    @Test(.requires(.swift)) func urlSessionOnLinuxFollowsHTTPSProxy() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Clients/ProxyEnvClient.swift")
        let result = try await Tool.run("env", ["https_proxy=\(try #require(server.address.proxyURL))", "swift", client.path,
                                                "https://market-training.yagom-academy.kr" + Self.page])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("200\n"), "\(result.stdout)")
        #expect(result.stdout.contains("\"items_per_page\":2"), "\(result.stdout)")
        #expect(server.engine.journal.entries().contains { $0.request.path == "/api/products" && $0.request.host == "market-training.yagom-academy.kr" })
    }
    #endif
}

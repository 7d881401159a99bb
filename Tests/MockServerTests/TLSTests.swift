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

/// HTTPS with the local CA, HTTP/2 by ALPN, and TLS faults, over real TLS sockets with
/// real clients: URLSession (FoundationNetworking), curl and openssl (#15).
@Suite struct TLSTests {
    /// A server on HTTPS only, with the default CA (trusted by URLSession here, see TestCA).
    static func secureServer(scenario: String = "happy-path", extraNames: [SubjectName] = [], http2: Bool = true) async throws -> TestServer {
        let ca = try await TestCA.trusted()
        return try await TestServer.start(scenario: scenario, tls: TLSSettings(caDirectory: ca.directory, extraNames: extraNames, http2: http2))
    }

    /// A session that trusts the test CA (a delegate on Apple platforms, the system store on Linux).
    static func session(timeout: TimeInterval = 10) async throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        return try await TestCA.session(configuration: configuration)
    }

    @Test func urlSessionGetsTheAPIsOverHTTPSWithHTTPSImageURLs() async throws {
        let server = try await Self.secureServer()
        defer { Task { await server.stop() } }
        #expect(server.address.baseURL.hasPrefix("https://"))
        let base = "https://localhost:\(server.port)"
        let (data, response) = try await Self.session().data(from: URL(string: base + "/menu")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let menu = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let items = try #require(menu["items"] as? [[String: Any]])
        let imageURL = try #require(items.first?["image_url"] as? String)
        #expect(imageURL.hasPrefix(base + "/"), "absolute URLs keep the scheme the client used: \(imageURL)")
        let (image, imageResponse) = try await Self.session().data(from: URL(string: imageURL)!)
        #expect((imageResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(Array(image.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        // An Open Market create (multipart) over HTTPS.
        let client = OpenMarketClient(base: URL(string: base)!)
        let (created, createdResponse) = try await client.create()
        #expect(createdResponse.statusCode == 201, "\(reason(created))")
    }

    @Test(.requires(.curl)) func curlWithTheCAGetsTheMenuOverHTTP2AndHTTP1() async throws {
        let server = try await Self.secureServer()
        defer { Task { await server.stop() } }
        let ca = try await TestCA.trusted().certificateURL.path
        let base = "https://localhost:\(server.port)"
        let h2 = try await Tool.run("curl", ["-sS", "--cacert", ca, "--http2", "-w", "\n%{http_version} %{http_code}", base + "/menu"])
        #expect(h2.status == 0, "\(h2.stderr)")
        #expect(h2.stdout.hasSuffix("\n2 200"), "\(h2.stdout.suffix(40))")
        #expect(h2.stdout.contains("\"items\""))
        let h1 = try await Tool.run("curl", ["-sS", "--cacert", ca, "--http1.1", "-o", "/dev/null", "-w", "%{http_version} %{http_code}", base + "/categories"])
        #expect(h1.stdout == "1.1 200", "\(h1.stderr)")
        // By IP address too: the certificate names 127.0.0.1.
        let ip = try await Tool.run("curl", ["-sS", "--cacert", ca, "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(server.port)/categories"])
        #expect(ip.stdout == "200", "\(ip.stderr)")
        // Trusting another CA only, curl refuses it: the trust is real.
        let otherCA = FileManager.default.temporaryDirectory.appendingPathComponent("other-ca-\(UUID().uuidString).pem")
        try Data(try LocalCA.ephemeral().certificatePEM.utf8).write(to: otherCA)
        defer { try? FileManager.default.removeItem(at: otherCA) }
        // (curl also reads the system's CA folder, which holds the local CA here: point it elsewhere.)
        let untrusted = try await Tool.run("curl", ["-sS", "--cacert", otherCA.path, "--capath", otherCA.deletingLastPathComponent().path,
                                                    base + "/categories"])
        #expect(untrusted.status == 60, "\(untrusted.stderr)")
        // Requests over HTTP/2 are journaled like any other.
        #expect(server.engine.journal.entries().contains { $0.request.path == "/menu" && $0.status == 200 })
    }

    @Test(.requires(.openssl, .hostname)) func openSSLSeesTheNamesALPNAndApplesRules() async throws {
        let server = try await Self.secureServer(extraNames: [SubjectName(parsing: "api.example.test")!, SubjectName(parsing: "10.9.8.7")!])
        defer { Task { await server.stop() } }
        let ca = try await TestCA.trusted().certificateURL.path
        let handshake = try await Tool.run("openssl", ["s_client", "-connect", "127.0.0.1:\(server.port)", "-alpn", "h2,http/1.1",
                                                        "-CAfile", ca, "-servername", "localhost", "-showcerts"], input: "")
        #expect(handshake.stdout.contains("ALPN protocol: h2"), "\(handshake.stdout)")
        #expect(handshake.stdout.contains("Verify return code: 0 (ok)"))
        let pem = try #require(handshake.stdout.range(of: "-----BEGIN CERTIFICATE-----").map { start in
            String(handshake.stdout[start.lowerBound...].prefix { _ in true }).components(separatedBy: "-----END CERTIFICATE-----")[0] + "-----END CERTIFICATE-----\n"
        })
        let text = try await Tool.run("openssl", ["x509", "-noout", "-text"], input: pem).stdout
        // The kernel's name as hostname(1) prints it: what the certificate must use (not
        // ProcessInfo.hostName, a reverse lookup on Apple platforms).
        // DNS names are case-insensitive and certificates carry them lower-case.
        let host = try await Tool.run("hostname", []).stdout.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        #expect(!host.isEmpty)
        for name in ["DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1", "DNS:\(host)", "DNS:\(host.split(separator: ".")[0]).local",
                     "DNS:api.example.test", "IP Address:10.9.8.7"] {
            #expect(text.contains(name), "the certificate should name \(name)")
        }
        #expect(text.contains("TLS Web Server Authentication"), "serverAuth EKU")
        #expect(text.contains("ecdsa-with-SHA256"))
        #expect(text.contains("Public-Key: (256 bit)"))
        #expect(text.contains("CA:FALSE"))
        // Apple: at most 825 days.
        // The default date form (`notBefore=Nov  4 09:05:01 2026 GMT`), which OpenSSL and
        // macOS's LibreSSL both print (LibreSSL has no -dateopt).
        let dates = try await Tool.run("openssl", ["x509", "-noout", "-startdate", "-enddate"], input: pem).stdout
        let parsed = dates.split(separator: "\n").compactMap { line -> Date? in
            guard let value = line.split(separator: "=", maxSplits: 1).last else { return nil }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "MMM d HH:mm:ss yyyy zzz"
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.date(from: value.split(separator: " ").joined(separator: " "))
        }
        #expect(parsed.count == 2, "\(dates)")
        if parsed.count == 2 { #expect(parsed[1].timeIntervalSince(parsed[0]) <= 825 * 86_400) }
    }

    @Test(.requires(.curl)) func withoutHTTP2ALPNOffersHTTP1Only() async throws {
        let server = try await Self.secureServer(http2: false)
        defer { Task { await server.stop() } }
        let ca = try await TestCA.trusted().certificateURL.path
        let result = try await Tool.run("curl", ["-sS", "--cacert", ca, "--http2", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                                                 "https://localhost:\(server.port)/categories"])
        #expect(result.stdout == "1.1 200", "\(result.stderr)")
    }

    @Test func plainAndSecureListenersServeOneEngine() async throws {
        let ca = try await TestCA.trusted()
        let server = try await TestServer.start(tls: TLSSettings(caDirectory: ca.directory, port: 0))
        defer { Task { await server.stop() } }
        #expect(server.address.baseURL.hasPrefix("http://"))
        let secure = try #require(server.address.secureBaseURL)
        #expect(secure.hasPrefix("https://") && !secure.hasSuffix(":\(server.port)"))
        let order = """
            {"menuIds":[1,2]}
            """
        var request = URLRequest(url: URL(string: secure.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/order")!)
        request.httpMethod = "POST"
        request.httpBody = Data(order.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await Self.session().data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let (_, plain) = try await Self.session().data(from: server.url("/categories"))
        #expect((plain as? HTTPURLResponse)?.statusCode == 200)
        let paths = server.engine.journal.entries().map(\.request.path)
        #expect(paths.contains("/order") && paths.contains("/categories"))
    }

    /// `--tls-cert`/`--tls-key`: the server presents the given certificate, byte for byte.
    @Test(.requires(.openssl)) func aGivenCertificateIsPresentedAsIs() async throws {
        let ca = try await TestCA.trusted()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("given-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let identity = try ca.issue(for: [.dns("localhost"), SubjectName(parsing: "127.0.0.1")!, .dns("given.example.test")])
        let certificate = folder.appendingPathComponent("server.pem"), key = folder.appendingPathComponent("server-key.pem")
        try Data(identity.certificatePEM.utf8).write(to: certificate)
        try Data(identity.privateKeyPEM.utf8).write(to: key)
        let server = try await TestServer.start(tls: TLSSettings(caDirectory: ca.directory, certificateFile: certificate, keyFile: key))
        defer { Task { await server.stop() } }
        let handshake = try await Tool.run("openssl", ["s_client", "-connect", "127.0.0.1:\(server.port)", "-CAfile", ca.certificateURL.path], input: "")
        let served = try await Tool.run("openssl", ["x509", "-noout", "-fingerprint", "-sha256"], input: handshake.stdout).stdout
        let given = try await Tool.run("openssl", ["x509", "-noout", "-fingerprint", "-sha256", "-in", certificate.path]).stdout
        #expect(!given.isEmpty && served == given, "\(served) vs \(given)")
        #expect(handshake.stdout.contains("Verify return code: 0 (ok)"))
        // A missing key file is named.
        await #expect { try await TestServer.start(tls: TLSSettings(caDirectory: ca.directory, certificateFile: certificate,
                                                                    keyFile: folder.appendingPathComponent("nope.pem"))) } throws: { error in
            guard case ServerError.tls(let problem) = error else { return false }
            return problem.file.hasSuffix("nope.pem") && problem.reason == "no such file"
        }
    }

    // MARK: The CA

    @Test func theCAIsMadeOnceAndReusedAndServedForDevices() async throws {
        // A parent that does not exist yet, as `~/.mock-server` on a fresh machine.
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)")
        let folder = parent.appendingPathComponent("ca")
        defer { try? FileManager.default.removeItem(at: parent) }
        let first = try await TestServer.start(tls: TLSSettings(caDirectory: folder))
        let fingerprint = try #require(await first.server.certificateAuthority?.fingerprint)
        await first.stop()
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(LocalCA.keyFile).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "the CA key is private")
        for made in [parent, folder] {
            let mode = try FileManager.default.attributesOfItem(atPath: made.path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o700, "\(made.lastPathComponent) is private (\(String(mode?.intValue ?? 0, radix: 8)))")
        }
        let second = try await TestServer.start(tls: TLSSettings(caDirectory: folder, port: 0))
        defer { Task { await second.stop() } }
        #expect(await second.server.certificateAuthority?.fingerprint == fingerprint, "a second start reuses the CA")

        let (pem, pemResponse) = try await Self.session().data(from: second.url("/__admin/ca.pem"))
        #expect((pemResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(pem == (try Data(contentsOf: folder.appendingPathComponent(LocalCA.certificateFile))))
        let (profile, profileResponse) = try await Self.session().data(from: second.url("/__admin/ca.mobileconfig"))
        #expect((profileResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/x-apple-aspen-config")
        let plist = try #require(try PropertyListSerialization.propertyList(from: profile, format: nil) as? [String: Any])
        #expect(plist["PayloadType"] as? String == "Configuration")
        let payload = try #require((plist["PayloadContent"] as? [[String: Any]])?.first)
        #expect(payload["PayloadType"] as? String == "com.apple.security.root")
        let ca = try LocalCA.load(from: folder)
        #expect(payload["PayloadContent"] as? Data == Data(ca.certificateDER))
    }

    @Test func aServerWithoutTLSHasNoCAToGive() async throws {
        try await withServer { server in
            let (data, response) = try await Self.session().data(from: server.url("/__admin/ca.pem"))
            #expect((response as? HTTPURLResponse)?.statusCode == 404)
            #expect(reason(data).contains("--tls"))
        }
    }

    @Test func aBrokenCAFolderIsNamedNotCrashed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("not a certificate".utf8).write(to: folder.appendingPathComponent(LocalCA.certificateFile))
        await #expect { try await TestServer.start(tls: TLSSettings(caDirectory: folder)) } throws: { error in
            guard case ServerError.tls(let problem) = error else { return false }
            return problem.file == folder.appendingPathComponent(LocalCA.certificateFile).path && problem.reason.contains("PEM")
        }
        // A key that is not the certificate's.
        let other = folder.appendingPathComponent("other")
        _ = try LocalCA.loadOrCreate(in: other)
        _ = try LocalCA.loadOrCreate(in: folder.appendingPathComponent("third"))
        try FileManager.default.copyItem(at: folder.appendingPathComponent("third/\(LocalCA.keyFile)"), to: folder.appendingPathComponent("mixed-key.pem"))
        try FileManager.default.removeItem(at: other.appendingPathComponent(LocalCA.keyFile))
        try FileManager.default.copyItem(at: folder.appendingPathComponent("mixed-key.pem"), to: other.appendingPathComponent(LocalCA.keyFile))
        #expect(throws: LocalCAError.self) { try LocalCA.load(from: other) }
    }
}

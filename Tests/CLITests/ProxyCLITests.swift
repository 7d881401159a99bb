import Foundation
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock-server --proxy-port` and `mock-server proxy-setup` as a user runs them.
@Suite struct ProxyCLITests {
    @Test(.requires(.curl)) func theProxyPortAnswersTheRealHostWithTheLocalCA() async throws {
        let folder = TLSCLITests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try MockServerProcess(["--port", "0", "--proxy-port", "0", "--ca-dir", folder.path, "--log-level", "error"])
        let first = try #require(await child.firstLine())
        let second = try #require(await child.firstLine())
        #expect(first.hasPrefix("Listening on http://127.0.0.1:"))
        #expect(second.hasPrefix("Proxying on http://127.0.0.1:"), "\(second)")
        let proxy = String(second.dropFirst("Proxying on ".count))
        let curl = try await Tool.run("curl", ["-sS", "-x", proxy, "--cacert", folder.appendingPathComponent("ca.pem").path,
                                              "-w", "\n%{http_code}", "https://market-training.yagom-academy.kr/api/products?page_no=1&items_per_page=2"])
        #expect(curl.stdout.hasSuffix("\n200"), "\(curl.stdout.suffix(200)) \(curl.stderr)")
        #expect(curl.stdout.contains("\"items_per_page\":2"), "\(curl.stdout.prefix(200))")
        child.signal(SIGTERM)
        #expect(await child.waitForExit() == 0)
    }

    @Test func offLoopbackWithoutATokenTheProxyIsRefused() async throws {
        let (status, stdout, stderr) = try await MockServerProcess.run(["--host", "0.0.0.0", "--admin-open", "--proxy-port", "0"])
        #expect(status == 2)
        #expect(stdout.isEmpty)
        #expect(stderr.contains("--proxy-open") && stderr.contains("--admin-token"), "\(stderr)")
    }

    @Test func proxySetupPrintsTheCommandsAndTheirUndo() async throws {
        let (status, stdout, stderr) = try await MockServerProcess.run(["proxy-setup", "--port", "8081", "--proxy-port", "9091"])
        #expect(status == 0, "\(stderr)")
        let commands = stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(commands == [
            "networksetup -setautoproxyurl 'Wi-Fi' 'http://127.0.0.1:8081/__admin/proxy.pac'",
            "networksetup -setautoproxystate 'Wi-Fi' on",
            "networksetup -setautoproxystate 'Wi-Fi' off",
            "networksetup -setwebproxystate 'Wi-Fi' off",
            "networksetup -setsecurewebproxystate 'Wi-Fi' off",
        ], "\(stdout)")
        #expect(stdout.contains("mock-server ca --simulator booted"))
        #expect(stdout.contains(":8081/__admin/ca.mobileconfig"))
        // A service name is one shell word, whatever it holds.
        let all = try await MockServerProcess.run(["proxy-setup", "--all-traffic", "--service", "Bob's $(reboot) LAN", "--proxy-port", "9091"])
        #expect(all.1.contains("networksetup -setwebproxy 'Bob'\\''s $(reboot) LAN' 127.0.0.1 9091\nnetworksetup -setsecurewebproxy 'Bob'\\''s $(reboot) LAN' 127.0.0.1 9091"), "\(all.1)")
        let undo = try await MockServerProcess.run(["proxy-setup", "--undo"])
        #expect(undo.1.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 3, "\(undo.1)")
    }
}

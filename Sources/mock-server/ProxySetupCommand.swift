import ArgumentParser
import Foundation
import MockServerTLS

/// `mock-server proxy-setup`: the commands that point a Mac (and the simulators, which use
/// the Mac's network settings) at a running server's proxy, and the ones that undo them,
/// plus what a device needs. It prints them; it changes nothing itself.
struct ProxySetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy-setup",
        abstract: "Print the commands that point this Mac and its simulators at mock-server's proxy (--proxy-port), and those that undo them.",
        discussion: """
            By default the Mac gets a proxy auto-configuration (PAC) file, /__admin/proxy.pac of \
            the running server: only the hosts the mock answers go to the proxy, everything else \
            goes direct. --all-traffic sends every HTTP and HTTPS request to the proxy instead \
            (give the server --pass-through, or other hosts are refused). The output is shell \
            commands and # comments: `mock-server proxy-setup | sh` applies them, \
            `mock-server proxy-setup --undo | sh` undoes them.
            """)

    @Option(help: ArgumentHelp("The network service to set (`networksetup -listallnetworkservices` lists them).", valueName: "name"))
    var service = "Wi-Fi"

    @Option(help: ArgumentHelp("The host the server listens on (as given to mock-server --host).", valueName: "host"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The server's --port (where /__admin/proxy.pac is served).", valueName: "port"))
    var port = 8080

    @Option(name: .customLong("proxy-port"), help: ArgumentHelp("The server's --proxy-port.", valueName: "port"))
    var proxyPort = 9090

    @Flag(name: .customLong("all-traffic"), help: "Send every HTTP and HTTPS request through the proxy, not only the mapped hosts.")
    var allTraffic = false

    @Flag(help: "Print only the commands that undo the setting.")
    var undo = false

    func validate() throws {
        for (name, value) in [("--port", port), ("--proxy-port", proxyPort)] where !(1...65535).contains(value) {
            throw ValidationError("\(name) must be between 1 and 65535")
        }
        guard !service.isEmpty, !service.contains("\n") else {
            throw ValidationError("--service must be a network service's name")
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }) else {
            throw ValidationError("--host must be a host name or an IP address")
        }
    }

    func run() throws {
        print(Self.lines(service: service, host: host, port: port, proxyPort: proxyPort, allTraffic: allTraffic, undo: undo,
                         lanAddress: Self.lanAddress()).joined(separator: "\n"))
    }

    /// The printed lines (`lanAddress`: this Mac's address on the local network, for the
    /// device instructions; nil when it has none).
    static func lines(service: String, host: String, port: Int, proxyPort: Int, allTraffic: Bool, undo: Bool, lanAddress: String?) -> [String] {
        let reachable = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        let urlHost = reachable.contains(":") && !reachable.hasPrefix("[") ? "[\(reachable)]" : reachable
        let service = shellQuoted(service)
        let undoLines = [
            "# Undo: turns this service's automatic, HTTP and HTTPS proxies off (a proxy you had set before must be set again).",
            "networksetup -setautoproxystate \(service) off",
            "networksetup -setwebproxystate \(service) off",
            "networksetup -setsecurewebproxystate \(service) off",
        ]
        guard !undo else { return undoLines }
        var lines: [String] = []
        if allTraffic {
            lines += [
                "# Every HTTP and HTTPS request of this Mac and its simulators goes to mock-server's proxy.",
                "# Hosts the mock does not answer are refused unless the server runs with --pass-through.",
                "networksetup -setwebproxy \(service) \(reachable) \(proxyPort)",
                "networksetup -setsecurewebproxy \(service) \(reachable) \(proxyPort)",
            ]
        } else {
            lines += [
                "# The hosts the mock answers (its APIs' own and --map) go to mock-server's proxy; everything else goes direct.",
                "networksetup -setautoproxyurl \(service) 'http://\(urlHost):\(port)/__admin/proxy.pac'",
                "networksetup -setautoproxystate \(service) on",
            ]
        }
        lines += [
            "# Simulators use these settings. Trust the CA once per simulator: mock-server ca --simulator booted",
            "# (HTTPS to a mapped host is answered with a certificate from that CA).",
        ]
        let device = lanAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "<this Mac's address on the Wi-Fi>"
        lines += [
            "# A device on the same Wi-Fi (run the server with --host 0.0.0.0 --admin-token TOKEN):",
            "#   Settings > Wi-Fi > (i) > Configure Proxy > Manual: server \(device), port \(proxyPort),",
            "#   Authentication on, any user name, the token as password (iOS keeps credentials only for a Manual proxy;",
            "#   Automatic, URL http://\(device):\(port)/__admin/proxy.pac, suits a proxy without a token: --proxy-open --admin-open),",
            "#   then install the CA from http://\(device):\(port)/__admin/ca.mobileconfig (add ?token=TOKEN with --admin-token) and trust it in",
            "#   Settings > General > About > Certificate Trust Settings.",
        ]
        return lines + undoLines
    }

    /// `text` as one word for `sh`: in single quotes, each quote in it written `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// This machine's first IPv4 address that is neither loopback nor link-local: what a
    /// device on the same network reaches it at.
    static func lanAddress() -> String? {
        for name in SubjectName.forThisMachine() {
            guard case .ip(let bytes, let text) = name, bytes.count == 4, bytes[0] != 127, !(bytes[0] == 169 && bytes[1] == 254) else { continue }
            return text
        }
        return nil
    }
}

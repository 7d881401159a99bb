import Foundation
import MockCore
import NIOCore

/// The proxy port's rules and what its tunnels need, shared by all its connections.
final class ProxyContext: Sendable {
    let settings: ForwardProxy
    /// Lower case: the hosts the engine's APIs answer to.
    let mappedHosts: Set<String>
    /// Required as `Proxy-Authorization` (Basic with any user name, or Bearer) when set.
    let token: String?
    let services: ListenerServices
    /// The TLS of tunnels to mapped hosts: a certificate per host from the local CA.
    let secure: SecureListener?

    /// Other machines can reach the proxy: pass-through goes to no address of this machine
    /// or its link (loopback, link-local, unspecified), which they could not reach themselves.
    let refusesLocalDestinations: Bool

    init(settings: ForwardProxy, mappedHosts: [String], token: String?, services: ListenerServices, secure: SecureListener?,
         exposed: Bool) {
        self.settings = settings
        refusesLocalDestinations = exposed
        self.mappedHosts = Set(mappedHosts.map { $0.lowercased() })
        self.token = token
        self.services = services
        self.secure = secure
    }

    func isMapped(_ host: String) -> Bool { mappedHosts.contains(host) }

    /// Whether `address` is loopback, link-local or unspecified (IPv4, IPv6, and IPv4
    /// mapped into IPv6): where a connection stays on this machine or its link.
    static func isLocal(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            let bytes = withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
            return isLocalV4(bytes)
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return isLocalV4(Array(bytes.suffix(4))) }
            let loopbackOrUnspecified = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] <= 1
            let linkLocal = bytes[0] == 0xFE && (bytes[1] & 0xC0) == 0x80
            return loopbackOrUnspecified || linkLocal
        case .unixDomainSocket:
            return true
        }
    }

    private static func isLocalV4(_ bytes: [UInt8]) -> Bool {
        bytes.count == 4 && (bytes[0] == 127 || bytes[0] == 0 || (bytes[0] == 169 && bytes[1] == 254))
    }

    /// Whether `value` (a `Proxy-Authorization` field, nil when absent) carries the token:
    /// `Basic` with any user name and the token as password (what iOS and macOS send for a
    /// proxy with a password), or `Bearer TOKEN`. Compared in constant time.
    func authorizes(_ value: String?) -> Bool {
        guard let token else { return true }
        guard let value else { return false }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return false }
        let offered: String
        switch parts[0].lowercased() {
        case "bearer":
            offered = parts[1].trimmingCharacters(in: .whitespaces)
        case "basic":
            guard let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
                  let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return false }
            offered = String(text[text.index(after: colon)...])
        default:
            return false
        }
        let a = Array(offered.utf8), b = Array(token.utf8)
        var difference = a.count ^ b.count
        for index in 0..<min(a.count, b.count) { difference |= Int(a[index] ^ b[index]) }
        return difference == 0
    }

    /// The reason a host nobody maps is refused, with what would answer it.
    func unmappedReason(_ target: ProxyTarget) -> String {
        let known = mappedHosts.sorted().joined(separator: ", ")
        return "\(target.host) is not a host the mock answers to (\(known.isEmpty ? "no API names a host" : known)), and the proxy is offline: "
            + "--map \(target.host)=API answers it with an API, --pass-through sends it to the real host"
    }
}

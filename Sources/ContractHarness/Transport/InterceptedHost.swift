import Foundation

/// One host a test intercepts, as written in `intercepting:`: a host name, which covers
/// every scheme and port (`market-training.yagom-academy.kr`), or `host:port`, which covers
/// that port only (`localhost:8080`; an IPv6 address in brackets, `[::1]:8080`). Names
/// are compared without case; a URL with no port has its scheme's (80 or 443). Loopback
/// (`localhost`, `127.0.0.1`, `::1`) is taken only with a port: every test's own server
/// listens there.
public struct InterceptedHost: Hashable, Sendable, CustomStringConvertible {
    /// Lower case, without brackets.
    public let host: String
    /// The one port covered; nil for every port.
    public let port: Int?

    /// Covers `host` (any case; stored lower-case) on `port`, or on every port when nil.
    public init(host: String, port: Int? = nil) {
        self.host = host.lowercased()
        self.port = port
    }

    /// Reads one entry of `intercepting:`.
    public init(parsing entry: String) throws(InterceptionError) {
        let text = entry.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw .invalidHost(entry, reason: "it is empty") }
        guard !text.contains("/") else {
            throw .invalidHost(entry, reason: "give the host alone (market-training.yagom-academy.kr, or localhost:8080 for one port), not a URL")
        }
        var name = Substring(text)
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidHost(entry, reason: "an IPv6 address lacks its closing ]") }
            name = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw .invalidHost(entry, reason: "only :PORT may follow an IPv6 address in brackets") }
                portText = rest.dropFirst()
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "@" || $0 == "?" || $0 == "#" }) else {
            throw .invalidHost(entry, reason: "that is no host name")
        }
        var port: Int?
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw .invalidHost(entry, reason: "the port must be a number from 1 to 65535")
            }
            port = number
        }
        guard port != nil || !Self.loopbackNames.contains(name.lowercased()) else {
            throw .invalidHost(entry, reason: "give the port (localhost:8080): every test's own server listens on loopback, "
                + "and intercepting all of it would take their requests")
        }
        self.init(host: String(name), port: port)
    }

    /// Loopback names, which an entry must give with a port.
    static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "::1"]

    /// Whether a request to `url` is covered.
    public func covers(_ url: URL) -> Bool {
        guard let urlHost = url.host else { return false }
        let bare = urlHost.hasPrefix("[") && urlHost.hasSuffix("]") ? String(urlHost.dropFirst().dropLast()) : urlHost
        guard bare.lowercased() == host else { return false }
        guard let port else { return true }
        return (url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)) == port
    }

    /// The entry as `intercepting:` writes it: `host` or `host:port`, an IPv6 address in brackets.
    public var description: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(name):\($0)" } ?? name
    }
}

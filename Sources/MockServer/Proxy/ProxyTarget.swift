/// Where a proxy request goes: the authority of a `CONNECT` request target or of an
/// absolute-form one. Parsing checks every byte: a target that is not a host name, an IPv4
/// address or a bracketed IPv6 address with a port in 1...65535 is refused with a reason.
/// A target that parses is the same target when its `authority` is parsed again.
///
/// The proxy fuzzer (the `Fuzz` package) reaches it through the `Fuzzing` SPI.
@_spi(Fuzzing) public struct ProxyTarget: Equatable, Sendable {
    /// Lower case; an IPv6 address without its brackets.
    public let host: String
    /// In 1...65535.
    public let port: Int

    /// `host:port` as it goes in a request line or a `Host` field.
    public var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// A `CONNECT` request target: authority-form, `host:port`, the port required
    /// (RFC 9110 9.3.6).
    public static func connect(_ target: String) -> Result<ProxyTarget, ProxyTargetProblem> {
        parseAuthority(Substring(target), defaultPort: nil)
    }

    /// An absolute-form request target (`http://host[:port]/path?query`): its authority,
    /// the port defaulting to the scheme's. Nil when `target` is not absolute-form (an
    /// origin-form path is the server's own request, not a proxy one).
    public static func absolute(_ target: String) -> (target: Result<ProxyTarget, ProxyTargetProblem>, scheme: String, originForm: String)? {
        let lower = target.prefix(8).lowercased()
        let scheme: String
        if lower.hasPrefix("http://") { scheme = "http" } else if lower.hasPrefix("https://") { scheme = "https" } else { return nil }
        let rest = target.dropFirst(scheme.count + 3)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<end]
        if let at = authority.lastIndex(of: "@") {   // userinfo is not forwarded (RFC 9110 4.2.4)
            authority = authority[authority.index(after: at)...]
        }
        var originForm = String(rest[end...])
        if let hash = originForm.firstIndex(of: "#") { originForm = String(originForm[..<hash]) }
        if originForm.isEmpty || originForm.hasPrefix("?") { originForm = "/" + originForm }
        return (parseAuthority(authority, defaultPort: scheme == "https" ? 443 : 80), scheme, originForm)
    }

    private static func parseAuthority(_ authority: Substring, defaultPort: Int?) -> Result<ProxyTarget, ProxyTargetProblem> {
        guard !authority.isEmpty else { return .failure(.init("the request target names no host")) }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .failure(.init("an IPv6 address in the request target has no closing ]")) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(.init("unexpected text after the IPv6 address: \(after.prefix(40))")) }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.utf8.count <= 45,
                  host.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }),
                  host.contains(":") else {
                return .failure(.init("\(host.prefix(60)) is not an IPv6 address"))
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty else { return .failure(.init("the request target names no host")) }
            guard host.utf8.count <= 253, host.utf8.allSatisfy(isHostByte), !host.hasPrefix("."), !host.hasPrefix("-") else {
                return .failure(.init("\(host.prefix(60)) is not a host name or an IP address"))
            }
        }
        let port: Int
        if let portText {
            guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(portText), (1...65535).contains(number) else {
                return .failure(.init("the port \(portText.prefix(20)) is not a number between 1 and 65535"))
            }
            port = number
        } else if let defaultPort {
            port = defaultPort
        } else {
            return .failure(.init("a CONNECT request target is host:port, and \(authority.prefix(60)) has no port"))
        }
        // A fully qualified name's trailing dot names the same host.
        if host.hasSuffix("."), !host.contains(":") { host = host.dropLast() }
        guard !host.isEmpty, !host.hasSuffix(".") else { return .failure(.init("\(authority.prefix(60)) is not a host name")) }
        return .success(ProxyTarget(host: host.lowercased(), port: port))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// Letters, digits, `-`, `.` and `_` (seen in real internal names): a DNS name or an
    /// IPv4 address.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }
}

/// Why a proxy request target cannot be used, in words for the client's 400.
@_spi(Fuzzing) public struct ProxyTargetProblem: Error, Equatable, Sendable {
    /// What is wrong with the target, as the 400's reason says it.
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}

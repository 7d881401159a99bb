import MockCore

/// An entry's `request.url`, read without Foundation's `URL` (whose host and port parsing
/// differs between platforms): scheme, host, explicit port, and the request target.
struct HARURL: Sendable, Equatable {
    /// `http` or `https`.
    let scheme: String
    /// Lower-cased; an IPv6 address keeps its brackets.
    let host: String
    /// The port the URL names, nil when it names none.
    let port: Int?
    /// Path and query, as a request line carries them (`/` at least; no fragment).
    let target: String

    enum Reading: Equatable {
        case url(HARURL)
        /// An absolute URL of another scheme (`data:`, `blob:`, `wss:`, …).
        case notHTTP(scheme: String)
        case invalid(reason: String)
    }

    var defaultPort: Int { scheme == "https" ? 443 : 80 }
    var effectivePort: Int { port ?? defaultPort }

    /// `host[:port]`, the port shown when it is not the scheme's default: what `--host` names.
    var hostKey: String {
        guard let port, port != defaultPort else { return host }
        return "\(host):\(port)"
    }

    /// The forms of this URL's origin a body may hold (with and without a default port).
    var origins: [String] {
        var forms = ["\(scheme)://\(hostKey)"]
        if let port { forms.append("\(scheme)://\(host):\(port)") } else { forms.append("\(scheme)://\(host):\(defaultPort)") }
        return forms
    }

    /// Whether `--host H` selects this URL: H is `host` or `host:port` (the effective port).
    func isNamed(by name: String) -> Bool {
        let name = name.lowercased()
        return name == hostKey || name == "\(host):\(effectivePort)"
    }

    static func read(_ text: String) -> Reading {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex else {
            return .invalid(reason: "\"\(text)\" is not an absolute URL (http://host/path)")
        }
        let scheme = text[..<colon].lowercased()
        guard let first = scheme.first, first.isLetter, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            return .invalid(reason: "\"\(text)\" is not an absolute URL (http://host/path)")
        }
        guard scheme == "http" || scheme == "https" else { return .notHTTP(scheme: scheme) }
        let afterScheme = text[text.index(after: colon)...]
        guard afterScheme.hasPrefix("//") else { return .invalid(reason: "\"\(text)\" has no host (expected \(scheme)://host/path)") }
        let rest = afterScheme.dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard !authority.isEmpty else { return .invalid(reason: "\"\(text)\" has no host") }

        var host = Substring(authority)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .invalid(reason: "\"\(text)\" has an IPv6 host without its closing \"]\"") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .invalid(reason: "\"\(text)\" has text after its IPv6 host") }
                portText = after.dropFirst()
            }
        } else if let portColon = authority.firstIndex(of: ":") {
            host = authority[..<portColon]
            portText = authority[authority.index(after: portColon)...]
        }
        var port: Int?
        if let portText {
            guard let number = Int(portText), portText.allSatisfy(\.isASCII), (1...65535).contains(number) else {
                return .invalid(reason: "\"\(text)\" has a port that is not a number from 1 to 65535")
            }
            port = number
        }
        guard !host.isEmpty, MockRequest.isPlainHost(String(host)) else {
            return .invalid(reason: "\"\(text)\" has a host that is not a plain host name or address")
        }

        var target = rest[authorityEnd...]
        if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
        if let bad = target.unicodeScalars.first(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return .invalid(reason: "\"\(text)\" holds \(bad == " " ? "a space" : "a control character"), which a request target cannot hold (browsers write %20)")
        }
        let path = target.hasPrefix("/") ? String(target) : "/" + target
        return .url(HARURL(scheme: scheme, host: host.lowercased(), port: port, target: path))
    }
}

import Foundation
import NIOCore
import SwiftASN1
import X509

/// A name a server certificate covers: a DNS name or an IP address.
public enum SubjectName: Sendable, Hashable, CustomStringConvertible {
    /// A host name, lower-case, possibly a wildcard (`*.example.com`).
    case dns(String)
    /// Network-order bytes: 4 for IPv4, 16 for IPv6.
    case ip([UInt8], text: String)

    /// Parses `--san` values: an IPv4 or IPv6 literal (brackets allowed) or a DNS name
    /// (`*.example.test` allowed). Nil when it is neither.
    public init?(parsing text: String) {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        if let bytes = Self.ipBytes(bare) {
            self = .ip(bytes, text: bare)
            return
        }
        let labels = bare.split(separator: ".", omittingEmptySubsequences: false)
        let valid = !bare.isEmpty && bare.utf8.count <= 253 && labels.enumerated().allSatisfy { index, label in
            if label == "*" { return index == 0 && labels.count > 2 }
            return !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
        }
        guard valid else { return nil }
        self = .dns(bare.lowercased())
    }

    /// The name as a host writes it: a DNS name lower-case, an IP address in its usual text.
    public var text: String {
        switch self {
        case .dns(let name): return name
        case .ip(_, let text): return text
        }
    }

    /// The name with its kind: `DNS:NAME` or `IP:ADDRESS`.
    public var description: String {
        switch self {
        case .dns(let name): return "DNS:\(name)"
        case .ip(_, let text): return "IP:\(text)"
        }
    }

    var generalName: GeneralName {
        switch self {
        case .dns(let name): return .dnsName(name)
        case .ip(let bytes, _): return .ipAddress(ASN1OctetString(contentBytes: bytes[...]))
        }
    }

    /// The names a server certificate for this machine covers: `localhost`, `127.0.0.1`,
    /// `::1`, the host name, `<host>.local` (Bonjour, what a device on the LAN resolves),
    /// every non-loopback address of the machine's interfaces (IPv6 link-local ones have
    /// no use in a certificate), then `extra`. Duplicates are dropped, order kept.
    public static func forThisMachine(extra: [SubjectName] = []) -> [SubjectName] {
        var names: [SubjectName] = [.dns("localhost"), SubjectName(parsing: "127.0.0.1")!, SubjectName(parsing: "::1")!]
        let host = MachineName.current
        if let name = SubjectName(parsing: host), case .dns = name {
            names.append(name)
            let short = host.split(separator: ".").first.map(String.init) ?? host
            if let local = SubjectName(parsing: short + ".local") { names.append(local) }
        }
        for device in (try? System.enumerateDevices()) ?? [] {
            guard let address = device.address?.ipAddress, let name = SubjectName(parsing: address) else { continue }
            guard case .ip(let bytes, _) = name else { continue }
            let loopback = bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
            let linkLocal = bytes.count == 16 && bytes[0] == 0xFE && (bytes[1] & 0xC0) == 0x80
            if !loopback && !linkLocal { names.append(name) }
        }
        names += extra
        var seen = Set<SubjectName>()
        return names.filter { seen.insert($0).inserted }
    }

    static func ipBytes(_ text: String) -> [UInt8]? {
        if text.contains(":") {
            guard let address = try? SocketAddress(ipAddress: text, port: 0), case .v6(let v6) = address else { return nil }
            return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }
}

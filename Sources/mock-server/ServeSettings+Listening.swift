import BuiltInMockAPIs
import Foundation
import MockCore
import MockServer
import MockServerTLS

/// How the `serve` settings name hosts and listen: `--map`, TLS and the forward proxy.
extension ServeSettings {
    /// `--map` as host to API name, or what is wrong with one of them.
    var hostMap: Result<[String: String], MapProblem> {
        var map: [String: String] = [:]
        for value in maps {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return .failure(MapProblem(description: "--map \(value) is not HOST=API")) }
            let host = parts[0].lowercased(), api = parts[1].lowercased()
            let isName = !host.isEmpty && host.utf8.count <= 253 && host.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            }
            guard isName else {
                return .failure(MapProblem(description: "--map \(value): \(parts[0]) is not a host name (give it without scheme or port)"))
            }
            let known = BuiltInAPIs.all.map(\.name) + documentFiles.map(\.name)
            guard known.contains(api) else {
                return .failure(MapProblem(description: "--map \(value): unknown API \"\(parts[1])\"; choose from: \(known.joined(separator: ", "))"))
            }
            map[host] = api
        }
        return .success(map)
    }

    struct MapProblem: Error, CustomStringConvertible {
        let description: String
    }

    /// Whether the server speaks HTTPS (`--tls`, or `--tls-port`, which implies it).
    var usesTLS: Bool { tls || tlsPort != nil }

    /// The forward proxy asked for, with the local CA for its tunnels' certificates.
    var forwardProxy: ForwardProxy? {
        guard let proxyPort else { return nil }
        let transport = TLSSettings(caDirectory: caDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? LocalCA.defaultDirectory,
                                    http2: !noHTTP2)
        return ForwardProxy(port: proxyPort, passThrough: passThrough, allowedTunnelPorts: Set([443, 80] + proxyAllowPorts),
                            openToNetwork: proxyOpen, secureTransport: transport)
    }

    var tlsSettings: TLSSettings? {
        guard usesTLS else { return nil }
        return TLSSettings(caDirectory: caDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? LocalCA.defaultDirectory,
                           extraNames: san.compactMap(SubjectName.init(parsing:)), port: tlsPort, http2: !noHTTP2,
                           certificateFile: tlsCert.map { URL(fileURLWithPath: $0) }, keyFile: tlsKey.map { URL(fileURLWithPath: $0) })
    }
}

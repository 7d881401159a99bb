import Foundation
import MockCore
import MockServer
import NIOCore
import NIOSSL

/// How a server speaks HTTPS: where its CA lives, the extra names its certificate
/// covers, and whether it serves plain HTTP beside it.
public struct TLSSettings: SecureTransport {
    /// The local CA's folder: created on first use, reused afterwards.
    public var caDirectory: URL
    /// Names the certificate covers besides this machine's (`--san`).
    public var extraNames: [SubjectName]
    /// Nil: the server's port speaks HTTPS only. A number: the server's port stays plain
    /// HTTP and this one (0 for a free one) speaks HTTPS (`--tls-port`).
    public var port: Int?
    /// Offer HTTP/2 by ALPN (URLSession takes it); off, HTTPS is HTTP/1.1 only.
    public var http2: Bool
    /// A certificate chain and key (PEM files) to present instead of one issued per start:
    /// your own (mkcert's, a company CA's), or one shared with another server (the benchmark
    /// gives nginx and mock-server the same). The TLS faults still use the local CA.
    public var certificateFile: URL?
    /// The private key (PEM) of `certificateFile`; used only when both are set.
    public var keyFile: URL?

    /// Makes HTTPS settings; by default the local CA in its usual folder, HTTPS on the server's
    /// own port, HTTP/2 offered, and a certificate issued per start.
    public init(caDirectory: URL = LocalCA.defaultDirectory, extraNames: [SubjectName] = [], port: Int? = nil, http2: Bool = true,
                certificateFile: URL? = nil, keyFile: URL? = nil) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.caDirectory = caDirectory
        self.extraNames = extraNames
        self.port = port
        self.http2 = http2
    }
}

/// A running server's TLS material: the CA, the certificate issued for this start, and
/// the contexts of the TLS faults (made when a scenario first asks for one).
final class ServerTLS: Sendable {
    let ca: LocalCA
    let identity: ServerIdentity
    let http2: Bool
    private let context: NIOSSLContext
    private let faultContexts = Locked([TLSHandshake.Fault: NIOSSLContext]())
    /// Proxied hosts' contexts by fault and host, and the order they were made in.
    private let hostContexts = Locked((contexts: [String: NIOSSLContext](), order: [String]()))

    /// The name the wrong-host certificate covers (and nothing a client asks for).
    static let wrongHostName = "wrong-host.mock-server.invalid"

    init(settings: TLSSettings) throws(LocalCAError) {
        ca = try LocalCA.loadOrCreate(in: settings.caDirectory).ca
        let names = SubjectName.forThisMachine(extra: settings.extraNames)
        if let certificateFile = settings.certificateFile, let keyFile = settings.keyFile {
            identity = try ServerIdentity(certificateFile: certificateFile, keyFile: keyFile, names: names)
        } else {
            identity = try ca.issue(for: names)
        }
        http2 = settings.http2
        context = try Self.makeContext(identity, http2: settings.http2, file: settings.certificateFile?.path ?? settings.caDirectory.path)
    }

    /// The context for a new connection: the good one, or the one a TLS fault presents.
    func context(for fault: TLSHandshake.Fault?) -> NIOSSLContext {
        guard let fault else { return context }
        if let made = faultContexts.withLock({ $0[fault] }) { return made }
        let made: NIOSSLContext
        do {
            let now = Date()
            switch fault {
            case .untrustedCertificate:
                made = try Self.makeContext(try LocalCA.ephemeral(now: now).issue(for: identity.names, now: now), http2: http2, file: "untrusted CA")
            case .expiredCertificate:
                made = try Self.makeContext(try ca.issue(for: identity.names, now: now, notBefore: now - 30 * 86_400, notAfter: now - 86_400),
                                            http2: http2, file: "expired certificate")
            case .wrongHost:
                made = try Self.makeContext(try ca.issue(for: [.dns(Self.wrongHostName)], now: now), http2: http2, file: "wrong-host certificate")
            case .handshakeReset, .slowHandshake:
                return context
            }
        } catch {
            return context
        }
        faultContexts.withLock { $0[fault] = made }
        return made
    }

    /// The context of a proxy tunnel to `host`: a certificate for that name from the local
    /// CA, or the one a TLS fault presents for it. Made on first use and kept: at most
    /// `hostContextLimit` of them, the oldest going first. When the CA cannot issue one,
    /// the server's own certificate (the client then refuses the name).
    func hostContext(for host: String, fault: TLSHandshake.Fault?) -> NIOSSLContext {
        let key = "\(fault.map { "\($0)" } ?? "-") \(host)"
        if let made = hostContexts.withLock({ $0.contexts[key] }) { return made }
        let now = Date()
        let names = [SubjectName(parsing: host) ?? .dns(host)]
        let made: NIOSSLContext
        do {
            switch fault {
            case .untrustedCertificate:
                made = try Self.makeContext(try LocalCA.ephemeral(now: now).issue(for: names, now: now), http2: http2, file: "untrusted CA")
            case .expiredCertificate:
                made = try Self.makeContext(try ca.issue(for: names, now: now, notBefore: now - 30 * 86_400, notAfter: now - 86_400),
                                            http2: http2, file: "expired certificate")
            case .wrongHost:
                return context(for: .wrongHost)
            case .handshakeReset, .slowHandshake, nil:
                made = try Self.makeContext(try ca.issue(for: names, now: now), http2: http2, file: "certificate for \(host)")
            }
        } catch {
            return context(for: fault)
        }
        hostContexts.withLock { kept in
            if kept.contexts[key] == nil {
                kept.order.append(key)
                if kept.order.count > Self.hostContextLimit { kept.contexts[kept.order.removeFirst()] = nil }
            }
            kept.contexts[key] = made
        }
        return made
    }

    /// How many proxied hosts' certificates are kept (a client that names a new host on
    /// every connection costs a certificate each time, not memory).
    static let hostContextLimit = 256

    private static func makeContext(_ identity: ServerIdentity, http2: Bool, file: String) throws(LocalCAError) -> NIOSSLContext {
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8)).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = http2 ? ["h2", "http/1.1"] : ["http/1.1"]
            // Closing, the server sends close_notify and waits this long for the client's
            // (NIO's default is 5 s). An idle keep-alive client does not read, so it never
            // answers: every stop and idle close would hold the socket 5 s. The closer need
            // not wait for the peer's close_notify (RFC 8446 6.1).
            configuration.shutdownTimeout = .milliseconds(100)
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw LocalCAError(file: file, reason: "the TLS layer refused the certificate: \(error)")
        }
    }
}

extension ServerIdentity {
    /// A certificate and key given as PEM files (`--tls-cert`, `--tls-key`).
    init(certificateFile: URL, keyFile: URL, names: [SubjectName]) throws(LocalCAError) {
        func read(_ url: URL) throws(LocalCAError) -> String {
            guard let text = try? String(contentsOf: url, encoding: .utf8), text.contains("-----BEGIN ") else {
                throw LocalCAError(file: url.path, reason: FileManager.default.fileExists(atPath: url.path) ? "not a PEM file" : "no such file")
            }
            return text
        }
        self.init(certificatePEM: try read(certificateFile), privateKeyPEM: try read(keyFile), names: names)
    }
}

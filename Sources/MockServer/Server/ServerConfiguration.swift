import Foundation
import Logging

/// How a `MockHTTPServer` listens.
public struct ServerConfiguration: Sendable {
    /// The address to listen on; `127.0.0.1` by default, so only this machine can reach it.
    public var host: String
    /// 0 asks the system for a free port; read the bound one from the server.
    public var port: Int
    /// Request bodies larger than this are answered with 413 and the connection closed.
    public var maxRequestBodySize: Int
    /// Timeouts, head size, connection count, write buffering, shutdown grace.
    public var limits: ConnectionLimits
    /// When set, every `/__admin` request must carry it (`X-Admin-Token` or
    /// `Authorization: Bearer`); required off loopback unless the admin API is left open.
    public var adminToken: String?
    /// HTTPS (and HTTP/2 by ALPN) with the local CA; nil serves plain HTTP only. Set it with
    /// `MockServerTLS`: `ServerConfiguration(tls: TLSSettings())`, or `configuration.tls`.
    public var secureTransport: (any SecureTransport)?
    /// A forward proxy on a port of its own, so clients keep their real URLs; nil: none.
    public var forwardProxy: ForwardProxy?

    /// Makes a configuration; by default loopback, a free port, 8 MiB request bodies, the
    /// default limits, no admin token, plain HTTP and no proxy.
    public init(host: String = "127.0.0.1", port: Int = 0, maxRequestBodySize: Int = 8 * 1024 * 1024,
                limits: ConnectionLimits = .default, adminToken: String? = nil, secureTransport: (any SecureTransport)? = nil,
                forwardProxy: ForwardProxy? = nil) {
        self.secureTransport = secureTransport
        self.forwardProxy = forwardProxy
        self.host = host
        self.port = port
        self.maxRequestBodySize = maxRequestBodySize
        self.limits = limits
        self.adminToken = adminToken
    }

    /// Whether `host` is a loopback address (only this machine can connect).
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.") || bare == "0:0:0:0:0:0:0:1"
    }
}

/// Why a server could not start.
public enum ServerError: Error, CustomStringConvertible, Equatable {
    /// Something else listens on the port already.
    case addressInUse(host: String, port: Int)
    /// The address cannot be bound, for the reason given.
    case cannotBind(host: String, port: Int, reason: String)
    /// `start()` was called on a server that was started before: a server starts once.
    case alreadyStarted
    /// The server is not running.
    case notRunning
    /// The local CA, the certificate or its key could not be made or loaded.
    case tls(LocalCAError)
    /// A forward proxy that other machines could reach, with no token and not declared
    /// open (`ForwardProxy.openToNetwork`): it would be an open relay.
    case exposedProxy(host: String)

    /// What went wrong, with the host and port where they matter.
    public var description: String {
        switch self {
        case .addressInUse(let host, let port):
            return "port \(port) on \(host) is already in use; stop the other server or pass --port 0 for a free port"
        case .cannotBind(let host, let port, let reason):
            return "cannot listen on \(host):\(port): \(reason)"
        case .alreadyStarted:
            return "the server is already started"
        case .notRunning:
            return "the server is not running"
        case .tls(let error):
            return "cannot serve HTTPS: \(error)"
        case .exposedProxy(let host):
            return "the proxy would listen on \(host), where other machines can use it: give --admin-token TOKEN (clients send it as Proxy-Authorization), or --proxy-open to leave it open to them"
        }
    }
}

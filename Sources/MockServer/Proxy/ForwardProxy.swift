import Foundation
import MockCore
import NIOCore

/// A forward proxy beside the server: a port of its own that takes what a client configured
/// with an HTTP proxy sends (absolute-form requests, `CONNECT` tunnels), so an app keeps its
/// real URLs and the mock answers them.
///
/// - A host an API answers to (its `MockAPI.hosts`, or `EngineConfiguration.hostMap`) is
///   answered by that API: an absolute-form request directly, a `CONNECT` tunnel by
///   terminating it here. A tunnel that starts a TLS handshake gets a certificate for the
///   name the client asked for (SNI, else the `CONNECT` host), issued by the local CA and
///   cached; HTTP/2 by ALPN. Scenarios, faults and network profiles apply as on the
///   server's own ports, and the journal records the host.
/// - Any other host is refused with a 403 and a JSON reason, unless `passThrough` is set:
///   then a `CONNECT` tunnel goes to the real host unchanged (to `allowedTunnelPorts`
///   only) and an absolute-form request is forwarded to it. A proxy other machines can
///   reach passes nothing through to this machine's own addresses (loopback, link-local).
/// - A proxy request's `Proxy-Authorization` is neither journaled nor passed on.
/// - The server refuses to start a proxy that machines other than this one can reach
///   unless `ServerConfiguration.adminToken` is set (clients then send it as
///   `Proxy-Authorization`, Basic with any user name or Bearer) or `openToNetwork` is.
/// - Malformed proxy requests (a bad authority, a port out of range) get a 400 with a reason.
///   Every refusal is journaled.
public struct ForwardProxy: Sendable {
    /// The proxy's port; 0 for a free one (`BoundAddress.proxyPort` says which).
    public var port: Int
    /// Tunnel and forward hosts no API answers to, instead of refusing them.
    public var passThrough: Bool
    /// The ports a pass-through tunnel may go to. A mapped host is answered here on any port
    /// (nothing leaves the machine), so this list only guards tunnels to real hosts.
    public var allowedTunnelPorts: Set<Int>
    /// Start off loopback without `adminToken`: anyone who can reach the port may use it.
    public var openToNetwork: Bool
    /// The TLS of tunnels to mapped hosts when the server has none of its own
    /// (`ServerConfiguration.secureTransport`, which is used first): `MockServerTLS`'s
    /// `TLSSettings`, whose local CA issues each host's certificate. Without either, a
    /// tunnel that starts a TLS handshake is closed, with a warning in the log; plain HTTP
    /// through a tunnel still works.
    public var secureTransport: (any SecureTransport)?
    /// How long a pass-through connection to a real host may take to open.
    public var connectTimeout: TimeAmount

    /// Makes a proxy setting; by default on a free port, refusing hosts no API answers to, with
    /// tunnels to ports 443 and 80 and a 10-second connect timeout.
    public init(port: Int = 0, passThrough: Bool = false, allowedTunnelPorts: Set<Int> = [443, 80], openToNetwork: Bool = false,
                secureTransport: (any SecureTransport)? = nil, connectTimeout: TimeAmount = .seconds(10)) {
        self.port = port
        self.passThrough = passThrough
        self.allowedTunnelPorts = allowedTunnelPorts
        self.openToNetwork = openToNetwork
        self.secureTransport = secureTransport
        self.connectTimeout = connectTimeout
    }

    /// The hosts `engine` answers to by name (lower case): its APIs' hosts and its host map.
    public static func mappedHosts(of engine: MockEngine) -> [String] {
        MappedHosts.of(engine)
    }
}

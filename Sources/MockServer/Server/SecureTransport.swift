import Foundation
import MockAdmin
import MockCore
import NIOCore

/// HTTPS for a `MockHTTPServer`: the layer a listener puts before HTTP on each connection
/// it accepts. The core server speaks plain HTTP/1.1 and names no TLS type, so a target
/// that never serves HTTPS compiles no TLS stack. The `MockServerTLS` product provides the
/// conformance, `TLSSettings` (TLS, HTTP/2 by ALPN, the local CA), and with it
/// `ServerConfiguration(tls:)`.
public protocol SecureTransport: Sendable {
    /// Nil: the server's port speaks HTTPS only. A number: the server's port stays plain
    /// HTTP and this one (0 for a free one) speaks HTTPS.
    var port: Int? { get }

    /// This start's listener: the certificate made or loaded, ready for connections.
    /// - Throws: `ServerError.tls` when the CA, the certificate or its key cannot be used.
    func makeListener() throws(ServerError) -> SecureListener
}

/// One start's HTTPS: what each connection on an HTTPS port gets before HTTP, and the CA a
/// client trusts for it. Made by a `SecureTransport`; the server keeps it while it runs.
public struct SecureListener: Sendable {
    /// The CA that signed the certificate, as clients take it (nil when the certificate
    /// came from elsewhere and no CA of ours signed it).
    public let certificateAuthority: CACertificate?
    /// What the transport keeps for this start (the TLS contexts, the CA).
    package let state: any Sendable
    /// Sets up a new connection's pipeline: the TLS handler, then HTTP by `connection`.
    package let initialize: @Sendable (SecureConnection) -> EventLoopFuture<Void>
    /// Sets up the pipeline of a proxy tunnel to a mapped host that starts a TLS handshake:
    /// a certificate for `host` (the `CONNECT` target's), or for the name the client's
    /// ClientHello asks for (SNI) when `isMapped` says the mock answers that one too, then
    /// HTTP by `connection`. Its handlers are in place when it returns, so the bytes read
    /// so far can be passed on. Nil: tunnels cannot carry TLS.
    package let intercept: (@Sendable (_ connection: SecureConnection, _ host: String, _ isMapped: @escaping @Sendable (String) -> Bool)
                            -> EventLoopFuture<Void>)?

    package init(certificateAuthority: CACertificate?, state: any Sendable,
                 initialize: @escaping @Sendable (SecureConnection) -> EventLoopFuture<Void>,
                 intercept: (@Sendable (SecureConnection, String, @escaping @Sendable (String) -> Bool) -> EventLoopFuture<Void>)? = nil) {
        self.certificateAuthority = certificateAuthority
        self.state = state
        self.initialize = initialize
        self.intercept = intercept
    }
}

/// A connection accepted on an HTTPS port, handed to the `SecureListener` once the server
/// has counted it: the listener adds its handlers, then HTTP/1.1 or multiplexed streams.
package struct SecureConnection: Sendable {
    package let channel: any Channel
    /// The server's pipeline (a failed handshake is journaled through it).
    package let pipeline: Pipeline
    package var engine: MockEngine { pipeline.engine }
    package let limits: ConnectionLimits
    /// Adds the HTTP/1.1 handlers to `channel` (after the TLS handler).
    package let addHTTP1: @Sendable (any Channel) throws -> Void
    /// The request handlers of a multiplexed connection's streams, which read and answer
    /// through `framing` (made on the connection's loop, once per connection).
    package let streamResponders: @Sendable (_ connection: any Channel, _ framing: any StreamFraming) -> StreamResponders
}

/// Makes the request handler of each stream of one multiplexed connection: the same
/// handler as HTTP/1.1's, which reads and answers through the connection's framing.
package struct StreamResponders: Sendable {
    let shared: NIOLoopBound<ConnectionShared>

    /// Adds a stream's request handler (its only handler) to `stream`.
    package func addHandler(to stream: any Channel) throws {
        try stream.pipeline.syncOperations.addHandler(HTTPConnectionHandler(shared: shared.value))
    }
}

/// HTTPS material that cannot be used (a CA folder, a certificate or key file): which file and why.
public struct LocalCAError: Error, CustomStringConvertible, Equatable {
    /// The path of the file or folder at fault.
    public let file: String
    /// What is wrong with it.
    public let reason: String
    /// `FILE: REASON`.
    public var description: String { "\(file): \(reason)" }

    /// Makes an error naming `file` and `reason`.
    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
}

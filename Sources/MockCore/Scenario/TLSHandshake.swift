import Foundation

/// What a scenario does to the TLS handshake of new HTTPS connections. The
/// handshake comes before any request, so a TLS fault is a scenario's, not a rule's: it
/// applies to connections, server-wide, and a plain-HTTP listener ignores it.
///
///     "tls": {"fault": "expiredCertificate"}
///     "tls": {"fault": "slowHandshake", "handshakeDelay": 15000}
///     "tls": {"fault": "handshakeReset", "times": 2}          // the first two connections
///     "tls": {"fault": "untrustedCertificate", "probability": 0.5}
public struct TLSHandshake: Sendable, Hashable {
    /// How the handshake goes wrong.
    public enum Fault: String, Sendable, CaseIterable, Hashable {
        /// The certificate is signed by a CA no client trusts (generated per start).
        case untrustedCertificate
        /// The certificate is signed by the local CA but expired yesterday.
        case expiredCertificate
        /// The certificate is signed by the local CA but names another host only.
        case wrongHost
        /// The server reads the ClientHello and resets the connection (TCP RST).
        case handshakeReset
        /// The server holds the ClientHello for `handshakeDelay` before answering it.
        case slowHandshake
    }

    /// How the handshake goes wrong.
    public var fault: Fault
    /// How long a slow handshake waits before the server answers the ClientHello, seconds.
    public var handshakeDelay: Double
    /// The share of new connections that get the fault (seeded, reproducible).
    public var probability: Double
    /// Only the first `times` connections after the scenario is selected; nil for all.
    public var times: Int?

    /// Seconds a slow handshake waits by default.
    public static let defaultHandshakeDelay = 10.0

    /// Makes a TLS fault; by default it hits every new connection, and a slow handshake waits
    /// `defaultHandshakeDelay` seconds.
    public init(fault: Fault, handshakeDelay: Double = TLSHandshake.defaultHandshakeDelay, probability: Double = 1, times: Int? = nil) {
        self.fault = fault
        self.handshakeDelay = handshakeDelay
        self.probability = probability
        self.times = times
    }
}

extension ScenarioParser {
    func tlsHandshake(_ json: JSONValue?, _ path: String) -> TLSHandshake? {
        guard let members = reader.object(json, path, keys: ["fault", "handshakeDelay", "probability", "times"]) else { return nil }
        if members["fault"] == nil { reader.problem("\(path).fault", "required key is missing") }
        let fault = reader.choice(members["fault"], "\(path).fault",
                                  Dictionary(uniqueKeysWithValues: TLSHandshake.Fault.allCases.map { ($0.rawValue, $0) }))
        let delay = reader.number(members["handshakeDelay"], "\(path).handshakeDelay", range: 0...600_000)
        if delay != nil, fault != .slowHandshake { reader.problem("\(path).handshakeDelay", "only a slowHandshake waits") }
        let probability = reader.number(members["probability"], "\(path).probability", range: 0...1) ?? 1
        let times = reader.integer(members["times"], "\(path).times", range: 1...Int.max)
        guard let fault else { return nil }
        return TLSHandshake(fault: fault, handshakeDelay: delay.map { $0 / 1000 } ?? TLSHandshake.defaultHandshakeDelay,
                            probability: probability, times: times)
    }
}

import Foundation

/// A network link's conditions in both directions, as Apple's Network Link Conditioner
/// describes one: bandwidth, delay and packet loss per direction, and a DNS delay.
/// The mock turns them into what a client would see (see `NetworkProfile.Effect`):
///
/// - **bandwidth**: the response body is paced at the downlink rate, and the request body
///   is read at the uplink rate (an upload takes its time over a socket, never less);
/// - **delay**: each request waits one round trip (uplink + downlink delay) before the
///   answer's first byte; the first request of a connection waits one more (the TCP
///   handshake) plus the DNS delay (where a real client looks the host name up);
/// - **loss**: every 1460-byte segment either way is lost with the direction's
///   probability (a seeded draw); each loss costs one retransmission, a round trip but at
///   least 200 ms (the smallest retransmission timeout). At 100 % loss nothing ever
///   arrives: the request hangs until the client gives up, as it does on such a link.
public struct NetworkProfile: Sendable, Hashable, Codable {
    /// The profile's name, as presets and `X-Mock-Network` spell it (`3G`).
    public var name: String
    /// Bits per second; nil is unlimited.
    public var downlinkBitsPerSecond: Int?
    /// Bits per second from the client; nil is unlimited.
    public var uplinkBitsPerSecond: Int?
    /// One-way delays, in seconds.
    public var downlinkDelay: TimeInterval
    /// One-way delay from the client, in seconds.
    public var uplinkDelay: TimeInterval
    /// Packet loss, 0...1.
    public var downlinkLoss: Double
    /// Packet loss from the client, 0...1.
    public var uplinkLoss: Double
    /// Added once per connection, before its first request.
    public var dnsDelay: TimeInterval

    /// Makes a profile; with only a name it is a perfect link.
    public init(name: String, downlinkBitsPerSecond: Int? = nil, uplinkBitsPerSecond: Int? = nil,
                downlinkDelay: TimeInterval = 0, uplinkDelay: TimeInterval = 0,
                downlinkLoss: Double = 0, uplinkLoss: Double = 0, dnsDelay: TimeInterval = 0) {
        self.name = name
        self.downlinkBitsPerSecond = downlinkBitsPerSecond
        self.uplinkBitsPerSecond = uplinkBitsPerSecond
        self.downlinkDelay = downlinkDelay
        self.uplinkDelay = uplinkDelay
        self.downlinkLoss = downlinkLoss
        self.uplinkLoss = uplinkLoss
        self.dnsDelay = dnsDelay
    }

    /// The Network Link Conditioner presets (Additional Tools for Xcode), with their
    /// published figures (1 Kbps = 1000 bit/s).
    public static let edge = NetworkProfile(name: "Edge", downlinkBitsPerSecond: 240_000, uplinkBitsPerSecond: 200_000,
                                            downlinkDelay: 0.400, uplinkDelay: 0.440)
    /// Network Link Conditioner's 3G: 780 / 330 kbit/s, 100 ms each way.
    public static let threeG = NetworkProfile(name: "3G", downlinkBitsPerSecond: 780_000, uplinkBitsPerSecond: 330_000,
                                              downlinkDelay: 0.100, uplinkDelay: 0.100)
    /// Network Link Conditioner's LTE: 50 / 10 Mbit/s, 50 / 65 ms.
    public static let lte = NetworkProfile(name: "LTE", downlinkBitsPerSecond: 50_000_000, uplinkBitsPerSecond: 10_000_000,
                                           downlinkDelay: 0.050, uplinkDelay: 0.065)
    /// Network Link Conditioner's DSL: 2 Mbit/s / 256 kbit/s, 5 ms each way.
    public static let dsl = NetworkProfile(name: "DSL", downlinkBitsPerSecond: 2_000_000, uplinkBitsPerSecond: 256_000,
                                           downlinkDelay: 0.005, uplinkDelay: 0.005)
    /// Network Link Conditioner's WiFi: 40 / 33 Mbit/s, 1 ms each way.
    public static let wifi = NetworkProfile(name: "WiFi", downlinkBitsPerSecond: 40_000_000, uplinkBitsPerSecond: 33_000_000,
                                            downlinkDelay: 0.001, uplinkDelay: 0.001)
    /// Network Link Conditioner's WiFi 802.11ac: 250 / 100 Mbit/s, 2 / 1 ms.
    public static let wifi80211ac = NetworkProfile(name: "WiFi 802.11ac", downlinkBitsPerSecond: 250_000_000,
                                                   uplinkBitsPerSecond: 100_000_000, downlinkDelay: 0.002, uplinkDelay: 0.001)
    /// Network Link Conditioner's Very Bad Network: 1 Mbit/s, 500 ms and 10 % loss each way.
    public static let veryBadNetwork = NetworkProfile(name: "Very Bad Network", downlinkBitsPerSecond: 1_000_000,
                                                      uplinkBitsPerSecond: 1_000_000, downlinkDelay: 0.500, uplinkDelay: 0.500,
                                                      downlinkLoss: 0.10, uplinkLoss: 0.10)
    /// Network Link Conditioner's High Latency DNS: a perfect link with 3 s of DNS delay.
    public static let highLatencyDNS = NetworkProfile(name: "High Latency DNS", dnsDelay: 3.0)
    /// Network Link Conditioner's 100% Loss: nothing arrives, and the request hangs until the client gives up.
    public static let totalLoss = NetworkProfile(name: "100% Loss", downlinkLoss: 1, uplinkLoss: 1)

    /// Every preset above.
    public static let presets: [NetworkProfile] = [.edge, .threeG, .lte, .dsl, .wifi, .wifi80211ac, .veryBadNetwork, .highLatencyDNS, .totalLoss]

    /// A preset by name, ignoring case, spaces and punctuation: "3G", "very-bad-network",
    /// "100% Loss", "100-loss" and "highlatencydns" all work.
    public static func preset(named name: String) -> NetworkProfile? {
        let key = Self.key(name)
        return presets.first { Self.key($0.name) == key }
    }

    static func key(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// The segment size losses are drawn for (a 1500-byte MTU's TCP payload).
    public static let segmentSize = 1460
    /// The smallest retransmission timeout (Linux's; Darwin's is larger).
    public static let minimumRetransmission: TimeInterval = 0.2

    /// Uplink delay plus downlink delay.
    public var roundTrip: TimeInterval { uplinkDelay + downlinkDelay }

    /// Nothing arrives either way.
    public var dropsEverything: Bool { downlinkLoss >= 1 || uplinkLoss >= 1 }

    /// How long `bytes` of request body take at the uplink rate (0 when unlimited).
    public func uploadDuration(bytes: Int) -> TimeInterval {
        guard let rate = uplinkBitsPerSecond, rate > 0 else { return 0 }
        return Double(bytes) * 8 / Double(rate)
    }

    /// What the link does to one exchange, apart from the upload itself (which the
    /// transport paces as it reads) and the connection's setup (`connectionSetup`).
    public struct Effect: Sendable, Equatable {
        /// Seconds before the answer's first byte: a round trip and the retransmissions.
        public var delay: TimeInterval
        /// The downlink's pace for the body; nil when unlimited.
        public var pacing: BodyPacing?
        /// Segments lost (and sent again) either way.
        public var lostSegments: Int
        /// Set at 100 % loss: nothing is ever answered.
        public var fault: Fault?
    }

    /// The effect on one request of `requestBytes` answered with `responseBytes`; loss
    /// draws come from `random`. Times are multiplied by `timeScale`.
    public func effect(requestBytes: Int, responseBytes: Int, timeScale: Double, random: inout SeededRandom) -> Effect {
        if dropsEverything { return Effect(delay: 0, pacing: nil, lostSegments: 0, fault: .hang) }
        var lost = 0
        lost += Self.losses(segments: Self.segments(requestBytes), probability: uplinkLoss, &random)
        lost += Self.losses(segments: Self.segments(responseBytes), probability: downlinkLoss, &random)
        let retransmission = max(roundTrip, Self.minimumRetransmission)
        var delay = (roundTrip + Double(lost) * retransmission) * timeScale
        let pacing = downlinkPacing(timeScale: timeScale)
        // The pace pauses between chunks; the first chunk's own time on the link comes
        // first, so a body shorter than a chunk takes its time too (never less than
        // size / bandwidth in all).
        if let pacing, let rate = downlinkBitsPerSecond, responseBytes > 0 {
            delay += Double(min(responseBytes, pacing.chunkSize)) * 8 / Double(rate) * timeScale
        }
        return Effect(delay: delay, pacing: pacing, lostSegments: lost, fault: nil)
    }

    /// The downlink as a body pace: a segment at a time (at least ten pauses a second are
    /// too many timers for a fast link, so fast links send bigger chunks).
    public func downlinkPacing(timeScale: Double) -> BodyPacing? {
        guard let rate = downlinkBitsPerSecond, rate > 0 else { return nil }
        let bytesPerSecond = Double(rate) / 8
        let chunk = max(Self.segmentSize, Int(bytesPerSecond / 50))
        return BodyPacing(chunkSize: chunk, interval: Double(chunk) / bytesPerSecond * timeScale)
    }

    /// Extra wait before a connection's first answer: the DNS lookup and the TCP handshake.
    public func connectionSetup(timeScale: Double) -> TimeInterval {
        (dnsDelay + roundTrip) * timeScale
    }

    static func segments(_ bytes: Int) -> Int { max(1, (bytes + segmentSize - 1) / segmentSize) }

    static func losses(segments: Int, probability: Double, _ random: inout SeededRandom) -> Int {
        guard probability > 0 else { return 0 }
        var lost = 0
        for _ in 0..<segments where random.nextUnit() < probability { lost += 1 }
        return lost
    }

    /// The slower of two paces (a scenario's throttle and the link's).
    public static func slower(_ a: BodyPacing?, _ b: BodyPacing?) -> BodyPacing? {
        guard let a else { return b }
        guard let b else { return a }
        let rateA = Double(a.chunkSize) / max(a.interval, .leastNonzeroMagnitude)
        let rateB = Double(b.chunkSize) / max(b.interval, .leastNonzeroMagnitude)
        return rateA <= rateB ? a : b
    }
}

extension NetworkProfile {
    /// The keys of a custom profile in JSON (admin API, scenario-free use).
    static let jsonKeys = ["name", "downlinkKbps", "uplinkKbps", "downlinkDelayMs", "uplinkDelayMs",
                           "downlinkLossPercent", "uplinkLossPercent", "dnsDelayMs"]

    /// A profile from JSON: a preset's name (`"3G"`), or an object with the keys above
    /// (kilobits per second, milliseconds, percent). The error says what is wrong.
    public static func parse(_ json: JSONValue) -> Result<NetworkProfile, NetworkProfileError> {
        if let name = json.stringValue {
            guard let preset = preset(named: name) else { return .failure(.unknown(name)) }
            return .success(preset)
        }
        guard case .object(let members) = json else {
            return .failure(.invalid("a profile is a preset's name or an object with \(jsonKeys.joined(separator: ", "))"))
        }
        if let unknown = members.keys.sorted().first(where: { !jsonKeys.contains($0) }) {
            return .failure(.invalid("unknown key \"\(unknown)\"; a custom profile has \(jsonKeys.joined(separator: ", "))"))
        }
        func number(_ key: String, max upper: Double) -> Result<Double?, NetworkProfileError> {
            guard let value = members[key], value != .null else { return .success(nil) }
            guard case .number(let number) = value, number >= 0, number <= upper else {
                return .failure(.invalid("\"\(key)\" must be a number from 0 to \(Int(upper))"))
            }
            return .success(number)
        }
        do {
            let down = try number("downlinkKbps", max: 100_000_000).get()
            let up = try number("uplinkKbps", max: 100_000_000).get()
            let profile = NetworkProfile(
                name: members["name"]?.stringValue ?? "custom",
                downlinkBitsPerSecond: down.map { Int($0 * 1000) }, uplinkBitsPerSecond: up.map { Int($0 * 1000) },
                downlinkDelay: (try number("downlinkDelayMs", max: 600_000).get() ?? 0) / 1000,
                uplinkDelay: (try number("uplinkDelayMs", max: 600_000).get() ?? 0) / 1000,
                downlinkLoss: (try number("downlinkLossPercent", max: 100).get() ?? 0) / 100,
                uplinkLoss: (try number("uplinkLossPercent", max: 100).get() ?? 0) / 100,
                dnsDelay: (try number("dnsDelayMs", max: 600_000).get() ?? 0) / 1000)
            if profile.downlinkBitsPerSecond == 0 || profile.uplinkBitsPerSecond == 0 {
                return .failure(.invalid("a bandwidth of 0 sends nothing; use \"downlinkLossPercent\": 100 for a dead link"))
            }
            return .success(profile)
        } catch {
            return .failure(error)
        }
    }

    /// The profile as JSON, in the units `parse` takes.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "name": .string(name),
            "downlinkDelayMs": .number((downlinkDelay * 1000).rounded()), "uplinkDelayMs": .number((uplinkDelay * 1000).rounded()),
            "downlinkLossPercent": .number(downlinkLoss * 100), "uplinkLossPercent": .number(uplinkLoss * 100),
            "dnsDelayMs": .number((dnsDelay * 1000).rounded()),
        ]
        members["downlinkKbps"] = downlinkBitsPerSecond.map { .number(Double($0) / 1000) } ?? .null
        members["uplinkKbps"] = uplinkBitsPerSecond.map { .number(Double($0) / 1000) } ?? .null
        return .object(members)
    }
}

/// A network profile that cannot be used: an unknown preset name, or a custom profile that is not valid.
public enum NetworkProfileError: Error, Equatable, CustomStringConvertible {
    /// No preset has this name.
    case unknown(String)
    /// A custom profile that cannot be used, for the reason given.
    case invalid(String)

    /// A message naming the known presets, or what is invalid.
    public var description: String {
        switch self {
        case .unknown(let name):
            return "Unknown network profile \"\(name)\"; known profiles: \(NetworkProfile.presets.map(\.name).joined(separator: ", "))"
        case .invalid(let reason):
            return "Invalid network profile: \(reason)"
        }
    }
}

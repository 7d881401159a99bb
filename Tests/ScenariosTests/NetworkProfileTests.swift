import Foundation
import MockCore
import Testing

/// The profiles as pure values: names, figures, parsing and the effect on an exchange.
@Suite struct NetworkProfileTests {
    @Test(arguments: [("3G", "3G"), ("3g", "3G"), ("Very Bad Network", "Very Bad Network"), ("very-bad-network", "Very Bad Network"),
                      ("100% Loss", "100% Loss"), ("100-loss", "100% Loss"), ("highlatencydns", "High Latency DNS"),
                      ("EDGE", "Edge"), ("lte", "LTE"), ("WiFi 802.11ac", "WiFi 802.11ac")])
    func presetsAreFoundByAnySpelling(given: String, name: String) {
        #expect(NetworkProfile.preset(named: given)?.name == name)
    }

    @Test func unknownNamesListTheKnownOnes() {
        #expect(NetworkProfile.preset(named: "5G") == nil)
        let message = NetworkProfileError.unknown("5G").description
        #expect(message.contains("\"5G\"") && message.contains("Very Bad Network") && message.contains("Edge"))
    }

    @Test func presetsCarryTheConditionersFigures() {
        #expect(NetworkProfile.threeG.uplinkBitsPerSecond == 330_000 && NetworkProfile.threeG.downlinkBitsPerSecond == 780_000)
        #expect(NetworkProfile.threeG.roundTrip == 0.2)
        #expect(NetworkProfile.edge.downlinkBitsPerSecond == 240_000 && abs(NetworkProfile.edge.roundTrip - 0.84) < 1e-9)
        #expect(NetworkProfile.veryBadNetwork.downlinkLoss == 0.1 && NetworkProfile.veryBadNetwork.uplinkLoss == 0.1)
        #expect(NetworkProfile.highLatencyDNS.dnsDelay == 3 && NetworkProfile.highLatencyDNS.roundTrip == 0)
        #expect(NetworkProfile.totalLoss.dropsEverything)
    }

    @Test func aThreeHundredKilobyteUploadAtThreeGTakesSevenAndAHalfSeconds() {
        let seconds = NetworkProfile.threeG.uploadDuration(bytes: 300 * 1024)
        #expect(abs(seconds - 300 * 1024 * 8 / 330_000) < 1e-9)
        #expect(seconds > 7.4 && seconds < 7.5)
        #expect(NetworkProfile.highLatencyDNS.uploadDuration(bytes: 1 << 20) == 0)
    }

    @Test func anExchangeWaitsARoundTripAndTheFirstChunksTime() {
        var random = SeededRandom(seed: 1)
        let effect = NetworkProfile.threeG.effect(requestBytes: 100, responseBytes: 975, timeScale: 1, random: &random)
        // 0.2 s round trip + 975 bytes at 97,500 B/s.
        #expect(abs(effect.delay - 0.21) < 1e-9)
        #expect(effect.lostSegments == 0 && effect.fault == nil)
        let pacing = try! #require(effect.pacing)
        #expect(abs(Double(pacing.chunkSize) / pacing.interval - 97_500) < 1)
        // Time-scaled.
        let scaled = NetworkProfile.threeG.effect(requestBytes: 100, responseBytes: 975, timeScale: 0.1, random: &random)
        #expect(abs(scaled.delay - 0.021) < 1e-9)
    }

    @Test func lossIsDrawnPerSegmentAndReproducible() {
        func draw(_ seed: UInt64) -> NetworkProfile.Effect {
            var random = SeededRandom(seed: seed)
            return NetworkProfile.veryBadNetwork.effect(requestBytes: 146_000, responseBytes: 146_000, timeScale: 1, random: &random)
        }
        let first = draw(7), again = draw(7)
        #expect(first == again)
        // 200 segments at 10 %: about 20 lost; each costs a 1 s round trip.
        #expect((8...35).contains(first.lostSegments), "\(first.lostSegments)")
        // The first 2500-byte chunk (a fiftieth of a second at 1 Mbit/s) comes first.
        #expect(abs(first.delay - (1 + Double(first.lostSegments) * 1 + 2500.0 * 8 / 1_000_000)) < 1e-9)
        #expect((0..<20).map { draw($0).lostSegments }.contains { $0 != first.lostSegments })
    }

    @Test func totalLossHangs() {
        var random = SeededRandom(seed: 0)
        #expect(NetworkProfile.totalLoss.effect(requestBytes: 10, responseBytes: 10, timeScale: 1, random: &random).fault == .hang)
    }

    @Test func theSlowerPaceWins() {
        let fast = BodyPacing(chunkSize: 1000, interval: 0.001), slow = BodyPacing(chunkSize: 100, interval: 0.1)
        #expect(NetworkProfile.slower(fast, slow) == slow)
        #expect(NetworkProfile.slower(slow, fast) == slow)
        #expect(NetworkProfile.slower(nil, fast) == fast)
    }

    @Test func customProfilesParseFromJSON() throws {
        let json = try #require(JSONValue(parsing: Data(#"{"name": "train", "uplinkKbps": 64, "downlinkDelayMs": 300, "uplinkLossPercent": 5}"#.utf8)))
        let profile = try NetworkProfile.parse(json).get()
        #expect(profile.name == "train" && profile.uplinkBitsPerSecond == 64_000 && profile.downlinkBitsPerSecond == nil)
        #expect(profile.downlinkDelay == 0.3 && profile.uplinkLoss == 0.05)
        #expect(try NetworkProfile.parse(profile.json).get() == profile)
        #expect(try NetworkProfile.parse(.string("lte")).get() == .lte)
    }

    @Test(arguments: [
        (#"{"uplinkKbps": -1}"#, "\"uplinkKbps\" must be a number from 0"),
        (#"{"downlinkLossPercent": 101}"#, "\"downlinkLossPercent\" must be a number from 0 to 100"),
        (#"{"upKbps": 5}"#, "unknown key \"upKbps\""),
        (#"{"uplinkKbps": 0}"#, "a bandwidth of 0 sends nothing"),
        (#"{"uplinkKbps": "fast"}"#, "\"uplinkKbps\" must be a number"),
        (#"[1]"#, "a preset's name or an object"),
        (#""6G""#, "Unknown network profile \"6G\""),
    ])
    func badProfilesSayWhatIsWrong(text: String, expected: String) throws {
        let json = try #require(JSONValue(parsing: Data(text.utf8)))
        guard case .failure(let error) = NetworkProfile.parse(json) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(error.description.contains(expected), "\(error)")
    }

    @Test func requestsTakeTheHeaderThenTheSessionThenTheServer() {
        let conditions = NetworkConditions(server: .lte)
        conditions.set(.edge, session: "slow")
        func resolved(_ fields: [(String, String)]) -> String? {
            try? conditions.resolve(HeaderFields(fields)).get()?.name
        }
        #expect(resolved([]) == "LTE")
        #expect(resolved([("X-Mock-Session", "slow")]) == "Edge")
        #expect(resolved([("X-Mock-Session", "other")]) == "LTE")
        #expect(resolved([("X-Mock-Session", "slow"), ("X-Mock-Network", "3G")]) == "3G")
        #expect(resolved([("X-Mock-Network", "none")]) == nil)
        guard case .failure = conditions.resolve(HeaderFields([("X-Mock-Network", "6G")])) else {
            Issue.record("an unknown header value resolved")
            return
        }
        conditions.set(nil, session: "slow")
        #expect(resolved([("X-Mock-Session", "slow")]) == "LTE")
        conditions.set(nil)
        #expect(resolved([]) == nil)
    }

    @Test func sessionProfilesAreBounded() {
        let conditions = NetworkConditions()
        for index in 0..<(NetworkConditions.maxSessions + 10) { conditions.set(.edge, session: "s\(index)") }
        #expect(conditions.sessionProfiles.count == NetworkConditions.maxSessions)
        #expect(conditions.configured(session: "s0") == nil)
        #expect(conditions.configured(session: "s\(NetworkConditions.maxSessions + 9)") == .edge)
    }
}

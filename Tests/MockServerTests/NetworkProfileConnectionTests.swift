import Foundation
import MockServer
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Network-condition profiles as a client of one connection sees them, on the connection's
/// event loop clock (`EmbeddedConnection`): an answer comes no sooner than the profile's
/// time (the uplink, a round trip, the connection's setup, the downlink's pace), and a
/// request without a profile is not held at all. No busy machine can stretch loop time,
/// so each bound is exact.
@Suite struct NetworkProfileConnectionTests {
    static let uploadBytes = 300 * 1024
    /// A PNG padded to the API's largest image, 300 KiB.
    static let image: Data = {
        let png = OpenMarketClient.image("1.png")
        return png + Data((0..<(uploadBytes - png.count)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    }()

    /// An Open Market create with `images`, as `OpenMarketClient.create` sends it.
    static func create(images: [(filename: String, data: Data, mime: String)], extra: String = "") -> Data {
        let boundary = "Boundary-\(UUID().uuidString)"
        let body = OpenMarketClient.multipart(boundary: boundary, params: OpenMarketClient.params(), images: images)
        let head = "POST /api/products HTTP/1.1\r\nHost: a\r\nidentifier: \(OpenMarketClient.vendor1.identifier)\r\n"
            + "Content-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(body.count)\r\n\(extra)\r\n"
        return Data(head.utf8) + body
    }

    /// The issue's case: an Open Market create sending a 300 KB image at 3G takes the
    /// uplink's time (300 KiB at 330 kbit/s = 7.45 s) and a round trip, never less.
    @Test func aThreeHundredKilobyteUploadAtThreeGTakesTheProfilesTime() throws {
        let connection = try EmbeddedConnection()
        connection.engine.network.set(.threeG)
        try connection.send(Self.create(images: [("big.png", Self.image, "image/png")]))
        let (response, milliseconds) = try #require(try connection.wholeAnswer(within: 30, step: 10))
        #expect(response.status == 201, "\(reason(response.body))")
        let floor = NetworkProfile.threeG.uploadDuration(bytes: Self.uploadBytes) + NetworkProfile.threeG.roundTrip
        #expect(Double(milliseconds) / 1000 >= floor, "took \(milliseconds) ms, the profile needs at least \(floor) s")
        let entry = try #require(connection.engine.journal.entries().last)
        #expect(entry.network == "3G")
        #expect(entry.request.body.size > Self.uploadBytes)   // the image and the multipart framing
    }

    /// The profile named by the request's header: the answer comes after the upload's
    /// time, the round trip and the connection's setup; the body's reads are held while
    /// it is ahead of the uplink.
    @Test func theHeaderChoosesTheProfileForOneRequestAndReadsArePaced() throws {
        let connection = try EmbeddedConnection()
        let body = Data(repeating: UInt8(ascii: "a"), count: Self.uploadBytes)
        let head = "POST /order HTTP/1.1\r\nHost: a\r\nX-Mock-Network: 3G\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        try connection.send(Data(head.utf8) + body)
        let reads = connection.reads.reads
        connection.channel.read()
        #expect(connection.reads.reads == reads, "a body ahead of the uplink holds reads")
        let (response, milliseconds) = try #require(try connection.wholeAnswer(within: 30, step: 10))
        #expect(response.status == 400)   // not JSON: the server read it all
        let profile = NetworkProfile.threeG
        let floor = profile.uploadDuration(bytes: body.count) + profile.roundTrip + profile.connectionSetup(timeScale: 1)
        #expect(Double(milliseconds) / 1000 >= floor, "took \(milliseconds) ms, the profile needs at least \(floor) s")
        let entry = try #require(connection.engine.journal.entries().last)
        #expect(entry.network == "3G")
        #expect(entry.request.body.size == body.count, "every byte sent was read")
    }

    /// Without a profile the same upload is answered before the clock moves (the control
    /// for the two tests above: their time is the profile's).
    @Test func withoutAProfileTheUploadIsNotPaced() throws {
        let connection = try EmbeddedConnection()
        try connection.send(Self.create(images: [("big.png", Self.image, "image/png")]))
        let (response, milliseconds) = try #require(try connection.wholeAnswer(within: 0))
        #expect(response.status == 201)
        #expect(milliseconds == 0)
        #expect(connection.engine.journal.entries().last?.network == nil)
    }

    @Test func theDownlinkPacesTheResponseBody() throws {
        let connection = try EmbeddedConnection()
        let slow = NetworkProfile(name: "slow-down", downlinkBitsPerSecond: 200_000)
        connection.engine.network.set(slow)
        try connection.send(getRequest("/api/products?page_no=1&items_per_page=100"))
        let (response, milliseconds) = try #require(try connection.wholeAnswer(within: 30, step: 10))
        #expect(response.status == 200)
        #expect(response.body.count > 20_000)
        let floor = Double(response.body.count) * 8 / 200_000
        #expect(Double(milliseconds) / 1000 >= floor, "\(response.body.count) bytes took \(milliseconds) ms, the downlink needs \(floor) s")
    }

    /// A session's profile applies to that session only, set through the admin API as a UI
    /// test or a script would.
    @Test func aSessionsProfileLeavesOtherClientsAlone() throws {
        let server = try EmbeddedServer()
        let admin = try server.connect()
        let put = #"{"profile": "Edge", "session": "slow"}"#
        try admin.send("PUT /__admin/network HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: \(put.utf8.count)\r\n\r\n\(put)")
        let set = try #require(try admin.wholeAnswer(within: 0))
        #expect(set.response.status == 200, "\(reason(set.response.body))")

        let slow = try server.connect()
        try slow.send(getRequest("/categories", "X-Mock-Session: slow\r\n"))
        let slowAnswer = try #require(try slow.wholeAnswer(within: 10, step: 10))
        #expect(slowAnswer.response.status == 200)
        #expect(Double(slowAnswer.milliseconds) / 1000 >= NetworkProfile.edge.roundTrip, "\(slowAnswer.milliseconds) ms")
        for extra in ["X-Mock-Session: fast\r\n", ""] {
            let other = try server.connect()
            try other.send(getRequest("/categories", extra))
            let answer = try #require(try other.wholeAnswer(within: 0), "another session is answered before the clock moves")
            #expect(answer.response.status == 200)
        }
        let networks = server.engine.journal.entries().filter { $0.request.path == "/categories" }.map(\.network)
        #expect(networks == ["Edge", nil, nil])

        try admin.send(getRequest("/__admin/network"))
        let listed = try #require(try admin.wholeAnswer(within: 0))
        let json = try #require(try JSONSerialization.jsonObject(with: listed.response.body) as? [String: Any])
        #expect((json["sessions"] as? [String: Any])?["slow"] != nil)
        #expect((json["presets"] as? [Any])?.count == NetworkProfile.presets.count)
    }

    @Test func highLatencyDNSDelaysAConnectionsFirstRequestOnly() throws {
        let connection = try EmbeddedConnection()
        connection.engine.network.set(.highLatencyDNS)
        try connection.send(getRequest("/categories"))
        let first = try #require(try connection.wholeAnswer(within: 10, step: 10))
        #expect(first.response.status == 200)
        #expect(first.milliseconds >= 3_000, "\(first.milliseconds) ms")
        try connection.send(getRequest("/categories"))
        let second = try #require(try connection.wholeAnswer(within: 10, step: 10))
        #expect(second.response.status == 200)
        #expect(second.milliseconds < 2_000, "the same connection looked the name up again: \(second.milliseconds) ms")
    }
}

/// Profiles over real loopback sockets, where no bound on time is asserted.
@Suite struct NetworkProfileEndToEndTests {
    @Test func totalLossAnswersNothingUntilTheClientGivesUp() async throws {
        try await withServer { server in
            let error = await HTTP.failure(server.url("/categories"), headers: ["X-Mock-Network": "100% Loss"], timeout: 1)
            #expect(error?.code == .timedOut)
            let entry = try #require(server.engine.journal.entries().last)
            #expect(entry.fault == .hang && entry.network == "100% Loss")
        }
    }

    @Test func anUnknownProfileIsAClearBadRequest() async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.get(server.url("/categories"), headers: ["X-Mock-Network": "6G"])
            #expect(response.statusCode == 400)
            #expect(reason(data).contains("Unknown network profile \"6G\"") && reason(data).contains("Very Bad Network"))
            #expect(server.engine.journal.entries().last?.status == 400)
            let (bad, refused) = try await HTTP.post(server.url("/__admin/network"), json: #"{"profile": {"uplinkKbps": -3}}"#, method: "PUT")
            #expect(refused.statusCode == 400)
            #expect(reason(bad).contains("\"uplinkKbps\" must be a number"))
        }
    }
}

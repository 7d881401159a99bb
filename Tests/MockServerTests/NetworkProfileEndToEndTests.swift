import Foundation
import MockServer
import Scenarios
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Network-condition profiles measured from real clients over loopback sockets. Lower
/// bounds only ("never less"): a busy machine can make an answer late, never early.
@Suite struct NetworkProfileEndToEndTests {
    static let uploadBytes = 300 * 1024
    /// A PNG padded to the API's largest image, 300 KiB.
    static let image: Data = {
        let png = OpenMarketClient.image("1.png")
        return png + Data((0..<(uploadBytes - png.count)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    }()

    /// The issue's case: an Open Market create sending a 300 KB image at 3G takes the
    /// uplink's time (300 KiB at 330 kbit/s = 7.45 s) and a round trip, never less.
    @Test func aThreeHundredKilobyteUploadAtThreeGTakesTheProfilesTime() async throws {
        try await withTestGate(exclusive: false) { try await withServer { server in
            server.engine.network.set(.threeG)
            let client = OpenMarketClient(base: server.url(""))
            let ((data, response), elapsed) = try await measure {
                try await client.create(images: [("big.png", Self.image, "image/png")])
            }
            #expect(response.statusCode == 201, "\(reason(data))")
            let floor = NetworkProfile.threeG.uploadDuration(bytes: Self.uploadBytes) + NetworkProfile.threeG.roundTrip
            #expect(elapsed >= floor, "took \(elapsed) s, the profile needs at least \(floor) s")
            let entry = try #require(server.engine.journal.entries().last)
            #expect(entry.network == "3G")
            #expect(entry.request.body.size > Self.uploadBytes)   // the image and the multipart framing
        } }
    }

    /// Over a raw socket, with the profile named by the request's header: the answer's
    /// first byte comes after the upload's time, the round trip and the connection's setup.
    @Test func theHeaderChoosesTheProfileForOneRequestAndReadsArePaced() async throws {
        try await withTestGate(exclusive: false) { try await withServer { server in
            let body = Data(repeating: UInt8(ascii: "a"), count: Self.uploadBytes)
            let connection = try RawConnection(port: server.port)
            let start = Date()
            let head = "POST /order HTTP/1.1\r\nHost: a\r\nX-Mock-Network: 3G\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
            async let sent = connection.sendWithin(Data(head.utf8) + body, timeout: 30)
            let read = await connection.read(timeout: 30) { RawResponse.parseAll($0).count == 1 }
            let elapsed = Date().timeIntervalSince(start)
            #expect(await sent == head.utf8.count + body.count)
            #expect(read.responses.first?.status == 400)   // not JSON: the server read it all
            let profile = NetworkProfile.threeG
            let floor = profile.uploadDuration(bytes: body.count) + profile.roundTrip + profile.connectionSetup(timeScale: 1)
            #expect(elapsed >= floor, "took \(elapsed) s, the profile needs at least \(floor) s")
            #expect(server.engine.journal.entries().last?.network == "3G")
        } }
    }

    /// Without a profile the same upload is a loopback upload (the control for the two
    /// tests above: their time is the profile's, not the machine's).
    @Test func withoutAProfileTheUploadIsNotPaced() async throws {
        try await withTestGate(exclusive: true) { try await withServer { server in
            let client = OpenMarketClient(base: server.url(""))
            let ((_, response), elapsed) = try await measure {
                try await client.create(images: [("big.png", Self.image, "image/png")])
            }
            #expect(response.statusCode == 201)
            #expect(elapsed < 5, "\(elapsed)")
            #expect(server.engine.journal.entries().last?.network == nil)
        } }
    }

    @Test func theDownlinkPacesTheResponseBody() async throws {
        try await withTestGate(exclusive: false) { try await withServer { server in
            let slow = NetworkProfile(name: "slow-down", downlinkBitsPerSecond: 200_000)
            server.engine.network.set(slow)
            let ((data, response), elapsed) = try await measure {
                try await HTTP.get(server.url("/api/products?page_no=1&items_per_page=100"))
            }
            #expect(response.statusCode == 200)
            #expect(data.count > 20_000)
            let floor = Double(data.count) * 8 / 200_000
            #expect(elapsed >= floor, "\(data.count) bytes took \(elapsed) s, the downlink needs \(floor) s")
        } }
    }

    /// A session's profile applies to that session only (read from the journal: no upper
    /// time bound), set through the admin API as a UI test or a script would.
    @Test func aSessionsProfileLeavesOtherClientsAlone() async throws {
        try await withServer { server in
            let (setData, set) = try await HTTP.post(server.url("/__admin/network"), json: #"{"profile": "Edge", "session": "slow"}"#, method: "PUT")
            #expect(set.statusCode == 200, "\(reason(setData))")
            let (_, slowElapsed) = try await measure { try await HTTP.get(server.url("/categories"), headers: ["X-Mock-Session": "slow"]) }
            _ = try await HTTP.get(server.url("/categories"), headers: ["X-Mock-Session": "fast"])
            _ = try await HTTP.get(server.url("/categories"))
            let networks = server.engine.journal.entries().filter { $0.request.path == "/categories" }.map(\.network)
            #expect(networks == ["Edge", nil, nil])
            #expect(slowElapsed >= NetworkProfile.edge.roundTrip)
            let (listed, _) = try await HTTP.get(server.url("/__admin/network"))
            let json = try #require(try HTTP.json(listed) as? [String: Any])
            #expect((json["sessions"] as? [String: Any])?["slow"] != nil)
            #expect((json["presets"] as? [Any])?.count == NetworkProfile.presets.count)
        }
    }

    @Test func highLatencyDNSDelaysAConnectionsFirstRequestOnly() async throws {
        try await withTestGate(exclusive: true) { try await withServer { server in
            server.engine.network.set(.highLatencyDNS)
            let connection = try RawConnection(port: server.port)
            let request = "GET /categories HTTP/1.1\r\nHost: a\r\n\r\n"
            var start = Date()
            connection.send(request)
            let first = await connection.read(timeout: 10) { RawResponse.parseAll($0).count == 1 }
            let firstElapsed = Date().timeIntervalSince(start)
            #expect(first.responses.first?.status == 200)
            #expect(firstElapsed >= 3, "\(firstElapsed)")
            start = Date()
            connection.send(request)
            let second = await connection.read(timeout: 10) { RawResponse.parseAll($0).count == 1 }
            let secondElapsed = Date().timeIntervalSince(start)
            #expect(second.responses.first?.status == 200)
            #expect(secondElapsed < 2, "the same connection looked the name up again: \(secondElapsed) s")
        } }
    }

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

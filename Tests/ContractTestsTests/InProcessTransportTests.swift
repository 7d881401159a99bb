@testable import ContractHarness
import Foundation
import MockFixtures
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The in-process transport's own parts (#22): the configurations it issues, their
/// bound, and the trust delegate's answer.
@Suite struct InProcessTransportTests {
    static func engine() throws -> MockEngine {
        try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
    }

    /// Each configuration gets a protocol class of its own, and the class leads to it.
    @Test func eachConfigurationHasItsOwnProtocolClass() async throws {
        let registration = try await MockURLProtocol.register(try Self.engine())
        let first = registration.sessionConfiguration(timeout: 3)
        let second = registration.sessionConfiguration(timeout: 4)
        let firstClass = try #require(first.protocolClasses?.first as? MockURLProtocol.Type)
        let secondClass = try #require(second.protocolClasses?.first as? MockURLProtocol.Type)
        #expect(ObjectIdentifier(firstClass) != ObjectIdentifier(secondClass))
        #expect(firstClass.configurationSlot != secondClass.configurationSlot)
        let issued = InProcessRegistry.shared.configuration(slot: secondClass.configurationSlot, authority: registration.authority)
        #expect(issued === second)
        #expect(InProcessRegistry.shared.configuration(slot: secondClass.configurationSlot, authority: "127.0.0.1:1") == nil)
        await registration.unregister()
        #expect(InProcessRegistry.shared.configuration(slot: firstClass.configurationSlot, authority: registration.authority) == nil)
    }

    /// The in-process transport journals when an answer ended, as a socket server does:
    /// a delayed answer's duration is there once the call returned, and no shorter than
    /// its delay (the slow-in-time check reads it to tell a late machine from a provider).
    @Test func anAnswersEndIsJournaled() async throws {
        let slow = Scenario(name: "slow-end", rules: [Rule("s", .get("/menu"), always: Outcome(.simulator, latency: .fixed(0.3)))])
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       extraScenarios: [slow], scenario: slow.name))
        let registration = try await MockURLProtocol.register(engine)
        let session = URLSession(configuration: registration.sessionConfiguration(timeout: 10))
        let answer: (Data, URLResponse)
        do {
            answer = try await session.data(from: registration.baseURL.appendingPathComponent("menu"))
        } catch {
            await registration.unregister()
            throw error
        }
        await registration.unregister()
        let response = answer.1
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let entry = try #require(engine.journal.entries().last)
        let duration = try #require(entry.duration, "the answer's end was not journaled")
        #expect(duration >= 0.3)
    }

    /// A paced body's end is journaled after its last chunk, not its first, and a load
    /// stopped before its answer came is not journaled as ended at all, as over a socket.
    @Test func aPacedAnswerEndsWithItsLastChunkAndAStoppedOneNever() async throws {
        let json = #"{"version": 1, "name": "paced-end", "rules": [{"name": "menu", "request": {"path": "/menu"}, "response": {"simulator": true, "throttle": {"dribble": {"duration": 600, "chunks": 4}}}}, {"name": "slow", "request": {"path": "/categories"}, "response": {"simulator": true, "latency": {"fixed": 1000}}}]}"#
        let paced = try ScenarioFile.parse(Data(json.utf8), file: "paced-end.json")
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       extraScenarios: [paced], scenario: paced.name))
        let registration = try await MockURLProtocol.register(engine)
        let session = URLSession(configuration: registration.sessionConfiguration(timeout: 10))
        do {
            _ = try await session.data(from: registration.baseURL.appendingPathComponent("menu"))
            // Started and stopped on a thread of its own: a task of the shared pool can wait
            // longer than the answer's 1 s for a thread in a full run.
            let url = registration.baseURL.appendingPathComponent("categories")
            try await onOwnThread {
                let load = session.dataTask(with: url) { _, _, _ in }
                load.resume()
                let cap = Date().addingTimeInterval(10)
                while !engine.journal.entries().contains(where: { $0.request.path == "/categories" }), Date() < cap { usleep(2_000) }
                load.cancel()
            }
            // Past the time the stopped answer was due.
            try await Task.sleep(nanoseconds: 1_300_000_000)
        } catch {
            await registration.unregister()
            throw error
        }
        await registration.unregister()
        let entries = engine.journal.entries()
        let menu = try #require(entries.first { $0.request.path == "/menu" })
        let duration = try #require(menu.duration, "the paced answer's end was not journaled")
        #expect(duration >= 0.4, "journaled at \(duration) s, before its last chunk")
        let categories = try #require(entries.first { $0.request.path == "/categories" })
        #expect(categories.duration == nil, "a load stopped before its answer was journaled as ended")
    }

    /// Slot numbers are spelled as types in binary: every number up to the bound maps
    /// to a class whose slot is that number.
    @Test func slotClassesNumberTheirSlots() throws {
        for slot in [1, 2, 3, 6, 7, 64, 1000, 4097] {
            let type = try #require(ConfigurationSlots.protocolClass(slot) as? MockURLProtocol.Type)
            #expect(type.configurationSlot == slot)
        }
        #expect(ObjectIdentifier(ConfigurationSlots.protocolClass(0)) == ObjectIdentifier(MockURLProtocol.self))
    }

    /// Bounded: an engine keeps at most 64 configurations; past that its oldest slot is
    /// reused, and its slots are freed when it unregisters.
    @Test func configurationsPerEngineAreBounded() async throws {
        let registration = try await MockURLProtocol.register(try Self.engine())
        let limit = InProcessRegistry.configurationsPerEngine
        let configurations = (0..<(limit + 6)).map { _ in registration.sessionConfiguration() }
        #expect(InProcessRegistry.shared.configurationCount(for: registration.authority) == limit)
        let oldest = try #require(configurations[0].protocolClasses?.first as? MockURLProtocol.Type)
        let newest = try #require(configurations.last?.protocolClasses?.first as? MockURLProtocol.Type)
        #expect(InProcessRegistry.shared.configuration(slot: oldest.configurationSlot, authority: registration.authority) !== configurations[0])
        #expect(InProcessRegistry.shared.configuration(slot: newest.configurationSlot, authority: registration.authority) === configurations.last)
        await registration.unregister()
        #expect(InProcessRegistry.shared.configurationCount(for: registration.authority) == 0)
    }

    /// URLSession's header merge: the session's headers under the request's own, names
    /// compared without case, non-string values written out.
    @Test func sessionHeadersGoUnderTheRequestsOwn() {
        let merged = MockURLProtocol.headers(["Accept": "application/json", "identifier": "mine"],
                                             sessionHeaders: ["IDENTIFIER": "session", "Accept-Language": "ko", "X-Count": 3])
        #expect(merged["identifier"] == "mine")
        #expect(merged["Accept-Language"] == "ko")
        #expect(merged["X-Count"] == "3")
        #expect(Array(merged).count == 4)
    }

    /// A server-trust challenge that fails evaluation gets the system's own handling, so
    /// URLSession reports the server-trust error (-1202); a cancel would report
    /// `URLError.cancelled`, which reads as "not a failure".
    @Test func anUntrustedServerGetsTheDefaultHandlingNotACancel() {
        #expect(LocalCATrust.disposition(trusted: false) == .performDefaultHandling)
        #expect(LocalCATrust.disposition(trusted: true) == .useCredential)
    }

    /// A registration's base URL is a real listener serving the same engine, for what a
    /// URLProtocol cannot carry (Apple's upload tasks) and for sessions made without the
    /// configuration.
    @Test func theBaseURLIsAListenerOnTheSameEngine() async throws {
        let engine = try Self.engine()
        let registration = try await MockURLProtocol.register(engine)
        #expect(registration.baseURL.host == "127.0.0.1")
        let configuration = URLSessionConfiguration.ephemeral   // no in-process protocol: a socket
        let (_, response) = try await URLSession(configuration: configuration).data(from: registration.baseURL.appendingPathComponent("categories"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(engine.journal.entries().map(\.request.path) == ["/categories"])
        await registration.unregister()
    }

    /// A 307 keeps its body, as data: the request's body stream was read already, and the
    /// protocol instance that loads the redirect on Apple platforms reads the new request.
    @Test func a307KeepsAStreamedBodyAsData() throws {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:1/order-elsewhere")!)
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("{}".utf8))
        let next = try #require(MockURLProtocol.redirect(request, body: Data(#"{"menuIds":[1]}"#.utf8), status: 307, location: "/order",
                                                         from: request.url!))
        #expect(next.httpMethod == "POST")
        #expect(next.httpBodyStream == nil)
        #expect(next.httpBody == Data(#"{"menuIds":[1]}"#.utf8))
        #expect(next.url?.path == "/order")
    }
}

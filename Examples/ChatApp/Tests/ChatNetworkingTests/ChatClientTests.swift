import ChatNetworking
import ContractTests
import ContractTestsTesting
import Foundation
import OpenAPIDocumentAPITesting
import Scenarios
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The API's document, as the tests' resource.
enum ChatDocument {
    static let url = Bundle.module.url(forResource: "chat", withExtension: "yaml")!
}

/// Ordinary tests of the client against the document. `.mockServer(api:)` gives each test a
/// server of its own on a loopback port: `sendMessage` answers with the document's example
/// stream, one event at a time, and the scenarios below break that stream the ways a real
/// network does.
@Suite struct ChatClientTests {
    /// The client against this test's server; `/v1` is the path of the document's server.
    private func client() -> ChatClient { ChatClient(baseURL: MockServer.current.url("/v1")) }

    /// Rules for `sendMessage` that keep the document's answer and break its stream.
    static func breaking(_ name: String, _ fault: StreamFault) -> Scenario {
        Scenario(name: name, rules: [
            Rule(name, .post("/v1/chats/{chatId}/messages"), always: Outcome(.simulator, streamFault: fault)),
        ])
    }

    static let reset = breaking("reset-after-two", .drop(after: 2, clean: false))
    static let endsEarly = breaking("ends-after-two", .drop(after: 2, clean: true))
    static let garbled = breaking("garbled-third", .malformed(after: 2))

    @Test(.mockServer(api: ChatDocument.url))
    func theChatsAreListed() async throws {
        #expect(try await client().chats().map(\.title) == ["Groceries", "Holiday plans"])
    }

    /// The reply comes token by token, in order, and ends with `done`; the request kept the
    /// document (the trait reports any that did not).
    @Test(.mockServer(api: ChatDocument.url))
    func aReplyStreamsTokenByToken() async throws {
        var tokens: [String] = []
        for try await token in client().reply(chat: 1, to: "What do I need?") { tokens.append(token) }
        #expect(tokens == ["Milk, ", "eggs ", "and ", "bread."])
        try await MockServer.current.expectations.expect(.post("/v1/chats/1/messages"), .exactly(1))
    }

    /// The connection is reset after two tokens: the two arrive, then an error, never a
    /// reply that looks whole.
    @Test(.mockServer(api: ChatDocument.url, scenario: reset.name, scenarios: [reset]))
    func aResetStreamIsAnErrorNotAShortReply() async throws {
        var tokens: [String] = []
        let error = await #expect(throws: ChatError.self) {
            for try await token in client().reply(chat: 1, to: "What do I need?") { tokens.append(token) }
        }
        guard case .interrupted? = error else {
            Issue.record("expected interrupted, got \(String(describing: error))")
            return
        }
        #expect(tokens == ["Milk, ", "eggs "])
    }

    /// The response ends properly but before `done`: the client says the reply is incomplete.
    @Test(.mockServer(api: ChatDocument.url, scenario: endsEarly.name, scenarios: [endsEarly]))
    func aStreamEndingBeforeDoneIsIncomplete() async throws {
        let error = await #expect(throws: ChatError.self) {
            for try await _ in client().reply(chat: 1, to: "What do I need?") {}
        }
        #expect(error == .incomplete(received: "Milk, eggs "))
    }

    /// The third event comes malformed: the client names it rather than skipping a token.
    @Test(.mockServer(api: ChatDocument.url, scenario: garbled.name, scenarios: [garbled]))
    func aMalformedEventIsNamed() async throws {
        var tokens: [String] = []
        let error = await #expect(throws: ChatError.self) {
            for try await token in client().reply(chat: 1, to: "What do I need?") { tokens.append(token) }
        }
        guard case .malformedEvent? = error else {
            Issue.record("expected malformedEvent, got \(String(describing: error))")
            return
        }
        #expect(tokens == ["Milk, ", "eggs "])
    }

    /// A screen that stops reading after the first token closes the request: the server
    /// sees the client go before the stream's end.
    @Test(.mockServer(api: ChatDocument.url, scenario: "slow", scenarios: [
        Scenario(name: "slow", rules: [
            Rule("slow", .post("/v1/chats/{chatId}/messages"), always: .eventStream(EventStream([
                .text(#"{"text":"Milk"}"#, event: "token"),
                // Far longer than any test: only a client that stays would see it.
                .text(#"{"text":", eggs"}"#, event: "token", delay: 600),
                .text("{}", event: "done"),
            ]))),
        ]),
    ]))
    func leavingAReplyClosesItsRequest() async throws {
        for try await token in client().reply(chat: 1, to: "What do I need?") {
            #expect(token == "Milk")
            break
        }
        let journal = MockServer.current.journal
        var ending: StreamTranscript.Ending?
        for _ in 0..<1_000 {
            ending = journal.entries().first?.transcript?.ending?.how
            if ending != nil { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(ending == .clientClosed)
    }
}

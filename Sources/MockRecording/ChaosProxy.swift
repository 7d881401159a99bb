import MockCore

/// A chaos proxy: a server whose source is a real server. Give `MockHTTPServer` an
/// upstream (`proxy:`) and its pipeline plays the engine's scenarios over the upstream's
/// answers: a rule whose outcome is the API's answer gets the real one, delayed, throttled,
/// transformed or cut as the outcome says; a stub rule answers without reaching the
/// upstream; sequences, state machines and seeded probabilities work as on the mock, per
/// `X-Mock-Session`. Network profiles apply too, and every exchange is journaled.
///
/// This type only names that arrangement: it answers as `upstream` does, and the server's
/// pipeline does the rest.
@available(*, deprecated, message: "pass the upstream itself as MockHTTPServer's proxy: its pipeline plays the scenarios over every upstream")
public struct ChaosProxy: AsyncResponder {
    /// The engine whose scenarios the server plays over the upstream.
    public let engine: MockEngine
    /// The real server that answers.
    public let upstream: any AsyncResponder

    /// Names `upstream` as the source of a server playing `engine`'s scenarios.
    public init(engine: MockEngine, upstream: any AsyncResponder) {
        self.engine = engine
        self.upstream = upstream
    }

    /// The upstream's answer to `request`, unchanged: the server's pipeline shapes it.
    public func respond(to request: MockRequest, target: String) async -> ResponsePlan {
        await upstream.respond(to: request, target: target)
    }
}

import Scenarios

/// A chaos proxy: forwards to a real server and plays the engine's scenarios over its
/// answers. A rule whose outcome is the simulator's answer gets the real one, delayed,
/// throttled, transformed or cut as the outcome says; a stub rule answers without
/// reaching the upstream; sequences, state machines and seeded probabilities work as on
/// the mock, per `X-Mock-Session`. Network profiles apply too. Every exchange is journaled
/// (the dashboard shows it), nothing is recorded.
public struct ChaosProxy: AsyncResponder {
    public let engine: MockEngine
    public let upstream: any AsyncResponder

    public init(engine: MockEngine, upstream: any AsyncResponder) {
        self.engine = engine
        self.upstream = upstream
    }

    public func respond(to request: MockRequest, target: String) async -> ResponsePlan {
        let upstream = upstream
        return await engine.plan(for: request) { forwarded in await upstream.respond(to: forwarded, target: target) }
    }
}

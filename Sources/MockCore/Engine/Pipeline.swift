import Foundation

/// What answers a server's own paths ahead of its APIs: the admin API under `/__admin`.
/// A server builds one and hands it to its `Pipeline`, so a request to it gets the same
/// answer in process as over a socket.
public protocol ControlPlane: Sendable {
    /// Whether `request` is this control plane's to answer.
    func handles(_ request: MockRequest) -> Bool
    /// The answer to a request it handles; the pipeline journals it like any other.
    func answer(_ request: MockRequest) -> ResponsePlan
}

/// One request's passage through the pipeline, as the transport that carries its answer
/// holds it: the journal entry written when the answer was decided, and the handle through
/// which the transport reports the answer's end. Transports never write the journal.
public struct Exchange: Sendable {
    /// The journal entry (`ServeEvent.id`).
    public let id: UInt64
    /// When the request arrived: the answer's duration is measured from it.
    public let receivedAt: Date
    let engine: MockEngine

    /// The answer's last byte is out, or its fault carried out: the entry gets its
    /// duration and live subscribers hear of it. Call once per exchange.
    public func finished() {
        engine.finish(id, receivedAt: receivedAt)
    }
}

/// The one pipeline every transport shares (sockets, `URLProtocol`, the OpenAPI runtime
/// transport, the proxy's tunnels). Its stages, in order:
///
///     control plane (/__admin) ─┐
///     control headers (X-Mock-Network, X-Mock-Session, X-Mock-Scenario)
///       ▸ the scenario's decision ▸ the source (the APIs, a stub, an upstream)
///       ▸ shaping (the outcome's transform, delay, throttle and fault, the network profile)
///     ─┴▸ the journal
///
/// The journal is the outer stage: every exchange is journaled once, here, the
/// control plane's and the transport's own refusals included. A transport plays the plan
/// and reports the end through the `Exchange`.
public struct Pipeline: Sendable {
    /// The engine that decides, answers and journals every request that reaches it.
    public let engine: MockEngine
    /// Answers its own requests before the engine sees them (the admin API); nil: none.
    public var control: (any ControlPlane)? { plane is NoControlPlane ? nil : plane }
    /// `control`, or a plane that handles nothing: called in place on every request, where
    /// an optional existential would be copied out to be opened.
    private let plane: any ControlPlane

    /// A pipeline answering from `engine`, with `control` ahead of it. Make one per server
    /// (or per in-process transport) and share it: building a control plane builds its routes.
    public init(engine: MockEngine, control: (any ControlPlane)? = nil) {
        self.engine = engine
        plane = control ?? NoControlPlane()
    }

    /// The answer to `request`, journaled: the control plane's, or the engine's stages with
    /// its APIs (or its `source`) as the source.
    public func answer(_ request: MockRequest) -> (plan: ResponsePlan, exchange: Exchange) {
        if plane.handles(request) {
            return engine.journal(request, plane.answer(request), checked: true)
        }
        switch engine.begin(request) {
        case .answered(let plan):
            return engine.journal(request, plan, checked: true)
        case .awaitingSource(let pending):
            return engine.journal(request, engine.complete(pending, base: engine.sourceAnswer(request), request: request), checked: true)
        }
    }

    /// The answer to `request` when the source is `upstream` (a proxy to a real server, whose
    /// answer is awaited off the event loop), journaled: the scenario decides first and
    /// `upstream` is asked only when the outcome wants the real answer (a stub never reaches
    /// it); the outcome and the network profile then shape what came back. The control
    /// plane still answers its own requests. `target` is the request line's URI as sent.
    public func answer(_ request: MockRequest, upstream: any AsyncResponder, target: String) async -> (plan: ResponsePlan, exchange: Exchange) {
        if plane.handles(request) {
            return engine.journal(request, plane.answer(request), checked: true)
        }
        switch engine.begin(request) {
        case .answered(let plan):
            return engine.journal(request, plan, checked: true)
        case .awaitingSource(let pending):
            let base = await upstream.respond(to: request, target: target)
            return engine.journal(request, engine.complete(pending, base: base, request: request), checked: true)
        }
    }

    /// A request the transport answered itself (malformed, too large, too slow, refused by
    /// the proxy, a failed TLS handshake), journaled with that answer, so no request the
    /// server received is missing from the journal. Its body is not checked against its
    /// API's document: the transport may not have read it.
    public func rejected(_ request: MockRequest, _ plan: ResponsePlan) -> (plan: ResponsePlan, exchange: Exchange) {
        engine.journal(request, plan, checked: false)
    }

    /// A request the transport received and ends here without an answer on the wire (the
    /// client left first; a tunnel was carried out): journaled with `plan` and finished at once.
    public func ended(_ request: MockRequest, _ plan: ResponsePlan) {
        engine.journal(request, plan, checked: false).exchange.finished()
    }
}

/// The control plane of a pipeline that has none.
private struct NoControlPlane: ControlPlane {
    func handles(_ request: MockRequest) -> Bool { false }
    /// Never asked: it handles nothing.
    func answer(_ request: MockRequest) -> ResponsePlan { .error(404, "No control plane") }
}

/// A source that answers later: the transport keeps its event loop free while it waits
/// (a proxy to a real server, say).
public protocol AsyncResponder: Sendable {
    /// `target` is the request line's URI exactly as the client sent it.
    func respond(to request: MockRequest, target: String) async -> ResponsePlan
}

// MARK: The stages

extension MockEngine {
    /// A request after the control headers and the scenario's decision: answered already
    /// (a bad `X-Mock-Network` or `X-Mock-Scenario`, or a stub, finished and shaped), or
    /// waiting for its source's answer.
    enum Begun {
        case answered(ResponsePlan)
        case awaitingSource(Pending)
    }

    /// What shapes a source's answer once it comes: the decision and the network profile.
    struct Pending {
        let decided: ScenarioEngine.Decided
        let profile: SharedProfile?
    }

    /// The control headers and the scenario's decision (counters and states move); a stub
    /// is answered, finished and shaped here.
    func begin(_ request: MockRequest) -> Begun {
        let controls = ControlFields(request.headers)
        let profile: SharedProfile?
        switch network.resolveShared(named: controls.network, session: controls.session) {
        case .failure(let error): return .answered(Self.refused(error))
        case .success(let resolved): profile = resolved
        }
        switch scenarios.decide(request, session: controls.session, requested: controls.scenario) {
        case .failure(let rejected):
            return .answered(rejected.plan)
        case .success(let decided):
            guard decided.asksInner else {
                var plan = scenarios.stubPlan(decided, request)
                shape(decided, profile, &plan, request: request)
                return .answered(plan)
            }
            return .awaitingSource(Pending(decided: decided, profile: profile))
        }
    }

    /// The source's answer, shaped by the decision and the network profile.
    func complete(_ pending: Pending, base: consuming ResponsePlan, request: MockRequest) -> ResponsePlan {
        var plan = base
        shape(pending.decided, pending.profile, &plan, request: request)
        return plan
    }

    /// The outcome over `plan` (transform, fault, delay, throttle), then the network profile.
    private func shape(_ decided: ScenarioEngine.Decided, _ profile: SharedProfile?, _ plan: inout ResponsePlan, request: MockRequest) {
        scenarios.finish(decided, &plan, request: request)
        if let profile { network.shape(&plan, shared: profile, request: request, timeScale: configuration.timeScale) }
    }

    /// The answer to a request whose `X-Mock-Network` names no profile.
    private static func refused(_ error: NetworkProfileError) -> ResponsePlan {
        ResponsePlan.error(400, error.description).answered(by: "network-profile")
    }

    /// The journal stage, the only writer of the journal: records `request` with `plan`
    /// and tells live subscribers. `checked`: the entry carries the request's violations of
    /// its API's document (a request the transport refused is not checked: its body may be
    /// gone).
    func journal(_ request: MockRequest, _ answered: consuming ResponsePlan, checked: Bool) -> (plan: ResponsePlan, exchange: Exchange) {
        let subscribed = events.subscriberCount > 0
        let conformance: ServeEvent.Conformance
        if !checked {
            conformance = .found([])
        } else if journal.keepsWhole(request) && !subscribed {
            conformance = .checkedWhenAsked(live.conformance)
        } else {
            // Checked now: the entry keeps only a digest of this body, or a live subscriber
            // (the dashboard) is about to be sent the entry with its violations.
            conformance = .found(live.conformance.violations(of: request) ?? [])
        }
        let id: UInt64
        if subscribed {
            let event = journal.record(request, plan: answered, conformance: conformance)
            events.publish("request", id: event.id, event.json)
            id = event.id
        } else {
            // No copy of the entry comes back; a subscriber that came meanwhile is sent
            // the entry as kept (just its id if a clear or an eviction took it first).
            id = journal.recordID(request, plan: answered, conformance: conformance)
            events.publish("request", id: id, journal.entry(id)?.json ?? ["id": .number(Double(id))])
        }
        var plan = answered
        plan.journalID = id
        return (plan, Exchange(id: id, receivedAt: request.receivedAt, engine: self))
    }

    /// The transport finished answering entry `id` (the response ended or the fault was
    /// carried out): its duration is measured from `receivedAt`.
    func finish(_ id: UInt64, receivedAt: Date) {
        let duration = max(0, timeSource.now().timeIntervalSince(receivedAt))
        journal.complete(id, duration: duration)
        events.publish("complete", id: id, ["id": .number(Double(id)), "durationMs": .number((duration * 10_000).rounded() / 10)])
    }
}

extension MockEngine {
    /// An engine that serves no API of its own: `source` answers whatever the scenarios
    /// leave to the APIs, through the same pipeline (decision, stubs, shaping, journal).
    /// For scenarios over answers that come from elsewhere (a capture, a responder of one's
    /// own) and for testing scenarios alone.
    /// - Throws: `FixtureError` when `current` is none of `scenarios` (nor `happy-path`).
    public convenience init(scenarios: [Scenario], current: String, source: any Responder, seed: UInt64 = 0, timeScale: Double = 1,
                            timeSource: any TimeSource = SystemTimeSource()) throws(FixtureError) {
        try self.init(configuration: EngineConfiguration(
            fixturesDirectory: FileManager.default.temporaryDirectory, apis: [], seed: seed, timeSource: timeSource, scenarioDirectories: [],
            scenario: current, timeScale: timeScale, preloaded: Preloaded(fixtures: FixtureSet(), scenarios: scenarios)), source: source)
    }
}

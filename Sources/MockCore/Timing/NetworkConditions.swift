import Foundation

/// Which network profile each request goes through: the request's `X-Mock-Network`
/// header, else its session's profile, else the server's. Loss draws come from one seeded
/// generator per session, so the same traffic loses the same segments.
public final class NetworkConditions: Sendable {
    /// A preset's name (`3G`, `Very Bad Network`) for one request, or `none` for no profile.
    public static let header = "X-Mock-Network"
    /// Sessions with a profile of their own kept at most; the oldest is dropped past it.
    public static let maxSessions = 1024

    struct State {
        var server: NetworkProfile?
        var sessions: [String: NetworkProfile] = [:]
        var sessionOrder: [String] = []
        var generators: [String: SeededRandom] = [:]
    }

    private let state: Locked<State>
    let seed: UInt64

    /// Makes the conditions with `server` as the profile of every request that names none (nil:
    /// none); `seed` seeds the loss draws.
    public init(server: NetworkProfile? = nil, seed: UInt64 = 0) {
        self.seed = seed
        state = Locked(State(server: server))
    }

    /// Sets (or with nil, clears) the server's profile, or one session's.
    public func set(_ profile: NetworkProfile?, session: String? = nil) {
        state.withLock { state in
            guard let session else {
                state.server = profile
                return
            }
            if let profile {
                if state.sessions[session] == nil {
                    state.sessionOrder.append(session)
                    if state.sessionOrder.count > Self.maxSessions {
                        let oldest = state.sessionOrder.removeFirst()
                        state.sessions[oldest] = nil
                        state.generators[oldest] = nil
                    }
                }
                state.sessions[session] = profile
            } else {
                state.sessions[session] = nil
                state.sessionOrder.removeAll { $0 == session }
            }
        }
    }

    /// The profile set for the server, or for a session (nil: the session has none of its
    /// own and takes the server's).
    public func configured(session: String? = nil) -> NetworkProfile? {
        state.withLock { state in session.map { state.sessions[$0] } ?? state.server }
    }

    /// Every session that has a profile of its own.
    public var sessionProfiles: [String: NetworkProfile] { state.withLock { $0.sessions } }

    /// The profile a request with these headers goes through; an unknown name in the
    /// header is an error the caller answers with 400.
    public func resolve(_ headers: HeaderFields) -> Result<NetworkProfile?, NetworkProfileError> {
        resolve(named: headers[Self.header], session: headers[ScenarioEngine.sessionHeader])
    }

    /// The same from the two header values it reads (`X-Mock-Network`, `X-Mock-Session`),
    /// for a transport that has not made `HeaderFields` of a request yet.
    public func resolve(named header: String?, session: String?) -> Result<NetworkProfile?, NetworkProfileError> {
        if let named = header?.trimmingCharacters(in: .whitespaces) {
            if ["none", "off"].contains(named.lowercased()) { return .success(nil) }
            guard let preset = NetworkProfile.preset(named: named) else { return .failure(.unknown(named)) }
            return .success(preset)
        }
        return .success(state.withLock { state in session.flatMap { state.sessions[$0] } ?? state.server })
    }

    /// `resolve(named:session:)` for the engine: the profile behind one reference (nil,
    /// the usual case, is no reference at all), which the engine passes on to the plan
    /// without copying the profile at each step.
    func resolveShared(named header: String?, session: String?) -> Result<SharedProfile?, NetworkProfileError> {
        if header != nil {
            switch resolve(named: header, session: session) {
            case .failure(let error): return .failure(error)
            case .success(let profile): return .success(profile.map(SharedProfile.init))
            }
        }
        // The same choice as `resolve`'s, with no optional profile copied on the way.
        return .success(state.withLock { state -> SharedProfile? in
            if let session, let profile = state.sessions[session] { return SharedProfile(profile) }
            if let server = state.server { return SharedProfile(server) }
            return nil
        })
    }

    /// `shape(_:profile:request:timeScale:)` with the profile already held by reference.
    func shape(_ plan: inout ResponsePlan, shared: SharedProfile, request: MockRequest, timeScale: Double) {
        apply(shared.profile, to: &plan, request: request, timeScale: timeScale)
        plan.sharedNetwork = shared
    }

    /// The profile's effect on one exchange, drawing losses from the session's generator.
    public func effect(of profile: NetworkProfile, session: String?, requestBytes: Int, responseBytes: Int,
                       timeScale: Double) -> NetworkProfile.Effect {
        guard profile.downlinkLoss > 0 || profile.uplinkLoss > 0 else {
            var none = SeededRandom(seed: 0)
            return profile.effect(requestBytes: requestBytes, responseBytes: responseBytes, timeScale: timeScale, random: &none)
        }
        let key = session ?? ScenarioEngine.defaultSession
        let seed = seed
        return state.withLock { state in
            if state.generators[key] == nil && state.generators.count >= Self.maxSessions { state.generators = [:] }
            return profile.effect(requestBytes: requestBytes, responseBytes: responseBytes, timeScale: timeScale,
                                  random: &state.generators[key, default: SeededRandom(seed: seed, stream: "network|\(key)")])
        }
    }

    /// Shapes a plan for `request`: the profile's round trip and losses before the first
    /// byte, its downlink pace (or the scenario's, when slower), and a hang at total loss.
    public func shape(_ plan: inout ResponsePlan, profile: NetworkProfile, request: MockRequest, timeScale: Double) {
        apply(profile, to: &plan, request: request, timeScale: timeScale)
        plan.network = profile
    }

    /// The profile's effect on the plan, without naming the profile in it.
    private func apply(_ profile: NetworkProfile, to plan: inout ResponsePlan, request: MockRequest, timeScale: Double) {
        let bodyBytes = request.method == "HEAD" ? 0 : plan.body.count
        let effect = effect(of: profile, session: request.headers[ScenarioEngine.sessionHeader],
                            requestBytes: request.body.count, responseBytes: bodyBytes, timeScale: timeScale)
        plan.delay += effect.delay
        plan.pacing = NetworkProfile.slower(plan.pacing, effect.pacing)
        if let fault = effect.fault { plan.fault = fault }
    }
}

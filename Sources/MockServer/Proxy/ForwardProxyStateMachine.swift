import Foundation
import NIOCore
import NIOHTTP1

/// What the proxy port does with a request head (`ForwardProxyStateMachine.decide`).
enum ProxyDecision: Equatable {
    /// The server's own request (origin-form, or absolute-form to a host the mock answers):
    /// the HTTP handler answers it.
    case pass
    /// Refused with a JSON reason, then the connection closes.
    case refuse(status: Int, reason: String)
    /// `CONNECT` to a host the mock answers: a tunnel answered here.
    case tunnelToMock(ProxyTarget)
    /// `CONNECT` to another host, passed through unchanged.
    case tunnelThrough(ProxyTarget)
    /// An absolute-form request to another host, sent on once in origin-form.
    case forward(ProxyTarget, originForm: String)

    static let authenticationReason = "The proxy needs the token given to --admin-token, as Proxy-Authorization: Basic (any user name, the token as password) or Bearer TOKEN"
}

/// The forward proxy's part of a proxy port connection, as a value: which requests are the
/// server's own (passed on to the HTTP handler) and which the proxy takes over (a tunnel, a
/// request forwarded, a refusal), in order with the requests before them. A takeover waits
/// for every answer to the requests passed on before it, holds reads from then on, and is
/// carried out once; what the client sends after it goes nowhere (a tunnel's bytes go to
/// the tunnel, not through here).
struct ForwardProxyStateMachine {
    /// A request the proxy takes over.
    struct Takeover {
        let decision: ProxyDecision
        let head: HTTPRequestHead
        var body: ByteBuffer
        let receivedAt: Date
    }

    enum State {
        /// Requests are the server's own so far.
        case passing
        /// A takeover's body is arriving.
        case collecting(Takeover)
        /// A takeover is complete; answers to requests before it are still under way.
        case waiting(Takeover)
        /// The takeover is being carried out: the connection is no longer HTTP here.
        case carriedOut
    }

    private(set) var state = State.passing
    /// Requests passed on whose answers have not ended.
    private(set) var answersPending = 0
    /// The largest body a forwarded request may have.
    let maxBodySize: Int

    init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    /// What the proxy port does with `head`: pure, for `proxy`'s rules. `authorization` is
    /// the head's `Proxy-Authorization`.
    static func decide(_ head: HTTPRequestHead, proxy: ProxyContext) -> ProxyDecision {
        if head.method == .CONNECT {
            guard proxy.authorizes(head.headers.first(name: "proxy-authorization")) else {
                return .refuse(status: 407, reason: ProxyDecision.authenticationReason)
            }
            switch ProxyTarget.connect(head.uri) {
            case .failure(let problem):
                return .refuse(status: 400, reason: "Malformed CONNECT request: \(problem.reason)")
            case .success(let target):
                if proxy.isMapped(target.host) { return .tunnelToMock(target) }
                if !proxy.settings.passThrough { return .refuse(status: 403, reason: proxy.unmappedReason(target)) }
                if let refusal = portRefusal(target, proxy) { return .refuse(status: 403, reason: refusal) }
                return .tunnelThrough(target)
            }
        }
        guard let absolute = ProxyTarget.absolute(head.uri) else { return .pass }
        guard proxy.authorizes(head.headers.first(name: "proxy-authorization")) else {
            return .refuse(status: 407, reason: ProxyDecision.authenticationReason)
        }
        switch absolute.target {
        case .failure(let problem):
            return .refuse(status: 400, reason: "Malformed proxy request: \(problem.reason)")
        case .success(let target):
            if proxy.isMapped(target.host) { return .pass }
            if !proxy.settings.passThrough { return .refuse(status: 403, reason: proxy.unmappedReason(target)) }
            if absolute.scheme == "https" {
                return .refuse(status: 400, reason: "An https:// request target goes through a CONNECT tunnel, not in the clear")
            }
            if let refusal = portRefusal(target, proxy) { return .refuse(status: 403, reason: refusal) }
            return .forward(target, originForm: absolute.originForm)
        }
    }

    private static func portRefusal(_ target: ProxyTarget, _ proxy: ProxyContext) -> String? {
        guard !proxy.settings.allowedTunnelPorts.contains(target.port) else { return nil }
        let allowed = proxy.settings.allowedTunnelPorts.sorted().map(String.init).joined(separator: ", ")
        return "Port \(target.port) is not allowed: the proxy passes traffic through to ports \(allowed) only; --proxy-allow-port \(target.port) allows it"
    }

    enum PartAction {
        /// Pass the part on to the HTTP handler.
        case pass
        /// Kept, or dropped: nothing goes on.
        case none
        /// Carry the takeover out now.
        case carryOut(Takeover)
    }

    /// A request head arrived, with the proxy's decision on it.
    mutating func receivedHead(_ head: HTTPRequestHead, decision: ProxyDecision, at now: Date) -> PartAction {
        guard case .passing = state else { return .none }
        guard decision != .pass else {
            answersPending += 1
            return .pass
        }
        state = .collecting(Takeover(decision: decision, head: head, body: ByteBuffer(), receivedAt: now))
        return .none
    }

    /// A part of a request body arrived. A forwarded body past `maxBodySize` is refused.
    mutating func receivedBody(_ chunk: inout ByteBuffer) -> PartAction {
        switch state {
        case .passing:
            return .pass
        case .collecting(var takeover):
            state = .passing   // drop the enum's reference before the body grows
            if takeover.body.readableBytes + chunk.readableBytes > maxBodySize {
                let refusal = ProxyDecision.refuse(status: 413, reason: "The request body is larger than the limit of \(maxBodySize) bytes")
                takeover = Takeover(decision: refusal, head: takeover.head, body: ByteBuffer(), receivedAt: takeover.receivedAt)
                state = .collecting(takeover)
                return .none
            }
            if case .forward = takeover.decision { takeover.body.writeBuffer(&chunk) }
            state = .collecting(takeover)
            return .none
        case .waiting, .carriedOut:
            return .none
        }
    }

    /// A request's end arrived: a complete takeover is carried out once no answer before it
    /// is under way.
    mutating func receivedEnd() -> PartAction {
        switch state {
        case .passing:
            return .pass
        case .collecting(let takeover):
            guard answersPending == 0 else {
                state = .waiting(takeover)
                return .none
            }
            state = .carriedOut
            return .carryOut(takeover)
        case .waiting, .carriedOut:
            return .none
        }
    }

    /// The HTTP handler ended an answer.
    mutating func answerEnded() -> PartAction {
        answersPending = max(0, answersPending - 1)
        guard answersPending == 0, case .waiting(let takeover) = state else { return .none }
        state = .carriedOut
        return .carryOut(takeover)
    }

    /// Whether a read may go on: not once a takeover's request is complete.
    var mayRead: Bool {
        switch state {
        case .passing, .collecting: return true
        case .waiting, .carriedOut: return false
        }
    }
}

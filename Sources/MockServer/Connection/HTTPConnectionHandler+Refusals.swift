import Foundation
import MockCore
import NIOCore
import NIOHTTP1

/// What the transport refuses before the engine sees a request (malformed, too large,
/// too slow), what a leaving client left behind, and a stopping server's request.
extension HTTPConnectionHandler {
    /// The connection clock's deadlines and limits, and a stopping server's request.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ConnectionClockEvent {
            switch event {
            case .idle:
                if machine.idleTimedOut() {
                    clock?.stop()
                    context.close(promise: nil)
                }
            case .headTimedOut:
                refuse(.headTimedOut, context: context)
            case .bodyStalled:
                refuse(.bodyStalled, context: context)
            case .headTooLarge(let limit):
                refuse(.headTooLarge(limit: limit), context: context)
            }
            return
        }
        // A stopping server asks each connection (each HTTP/2 stream) to finish (NIO's quiesce
        // event). An HTTP/2 stream ends with its END_STREAM: closing it here would reset a
        // stream whose answer is written but still held by flow control; the connection's
        // HTTP2GracefulClose closes once every stream has ended (or the grace cuts it).
        if event is ChannelShouldQuiesceEvent {
            if machine.quiesce() == .closeAfterWrites {
                clock?.stop()
                finishExchange()
                closeAfterWrites(context: context)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    static func seconds(_ amount: TimeAmount) -> String {
        let value = Double(amount.nanoseconds) / 1e9
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// A request the transport refuses before the engine sees it (malformed, too large,
    /// too slow): a JSON error, journaled, then the connection closes. While an answer is
    /// under way there is nothing to answer on, and the connection just closes.
    func refuse(_ refusal: ConnectionStateMachine.Refusal, context: ChannelHandlerContext) {
        clock?.stop()
        switch machine.refuse(refusal) {
        case .close:
            finishExchange()
            context.close(promise: nil)
        case .refuse(let inProgress):
            let plan = Self.plan(for: refusal, limits: shared.limits)
            let request = inProgress.map { makeRequest($0.head, body: Data(), receivedAt: $0.receivedAt) }
                ?? MockRequest(method: Self.method(for: refusal), uri: "/", baseURL: shared.fallbackBaseURL,
                               receivedAt: shared.engine.timeSource.now())
            upload = nil
            inFlight = shared.rejected(request, plan).exchange
            execute(plan, for: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"), context: context, keepAlive: false)
        }
    }

    /// The answer to a refusal: its status, reason and details.
    static func plan(for refusal: ConnectionStateMachine.Refusal, limits: ConnectionLimits) -> ResponsePlan {
        let seconds = { (amount: TimeAmount) in JSONValue.number(Double(amount.nanoseconds) / 1e9) }
        switch refusal {
        case .malformed(let problem):
            return .error(400, "Malformed HTTP request (\(problem))")
        case .headTooLarge(let limit):
            return .error(431, "The request head (request line and headers) is larger than the limit of \(limit) bytes",
                          details: ["limit": .number(Double(limit))])
        case .headTimedOut:
            return .error(408, "The request head (request line and headers) did not arrive within \(Self.seconds(limits.headTimeout)) s",
                          details: ["timeoutSeconds": seconds(limits.headTimeout)])
        case .bodyStalled:
            return .error(408, "The request body stopped arriving for \(Self.seconds(limits.idleTimeout)) s",
                          details: ["timeoutSeconds": seconds(limits.idleTimeout)])
        }
    }

    /// The journal's method for a refusal with no request head: what was wrong with it.
    private static func method(for refusal: ConnectionStateMachine.Refusal) -> String {
        switch refusal {
        case .malformed, .headTooLarge: return "INVALID"
        case .headTimedOut, .bodyStalled: return "INCOMPLETE"
        }
    }

    /// A request the decoder delivered after the connection closed (it was parsing the
    /// last bytes it read): journaled at its head, as abandoned.
    func arrivedAfterClose(_ part: HTTPServerRequestPart) {
        guard case .head(let head) = part else { return }
        shared.pipeline.ended(makeRequest(head, body: Data(), receivedAt: shared.engine.timeSource.now()),
                              .error(499, "The connection closed before this request was answered"))
    }

    /// Bytes of a request head the client closed the connection in the middle of: a
    /// malformed request, journaled (400, `INVALID`) though nothing can be answered.
    func journalCutHead(_ problem: HTTPParserError) {
        shared.pipeline.ended(MockRequest(method: "INVALID", uri: "/", baseURL: shared.fallbackBaseURL,
                                          receivedAt: shared.engine.timeSource.now()),
                              .error(400, "Malformed HTTP request (the connection closed in the middle of the request head: \(problem))"))
    }

    /// The client went away with requests the server had read but not answered: one cut
    /// off mid-body, and complete ones queued behind an answer (pipelining). Each is
    /// journaled as 499 (nginx's "client closed request"), so the journal holds every
    /// request the server received.
    func journalAbandoned() {
        let abandoned = machine.closed()
        guard !abandoned.isEmpty else { return }
        let now = shared.engine.timeSource.now()
        for request in abandoned {
            let reason: String
            switch request.reason {
            case .bodyCutOff: reason = "The client closed the connection before the request body ended"
            case .uplinkCutOff: reason = "The client closed the connection while the network profile's uplink was still carrying its body"
            case .queued: reason = "The client closed the connection before this pipelined request was answered"
            }
            shared.pipeline.ended(makeRequest(request.head, body: Data(), receivedAt: request.receivedAt ?? now), .error(499, reason))
        }
    }
}

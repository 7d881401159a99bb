import Foundation
import NIOCore
import NIOHTTP1
import Scenarios

/// What the transport refuses before the engine sees a request (malformed, too large,
/// too slow), what a leaving client left behind, and a stopping server's request.
extension HTTPRequestHandler {
    /// The connection clock's deadlines and limits, and a stopping server's request.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ConnectionClockEvent {
            let seconds = { (amount: TimeAmount) in JSONValue.number(Double(amount.nanoseconds) / 1e9) }
            switch event {
            case .idle:
                if case .idle = state, queued.isEmpty {
                    finishClosing()
                    context.close(promise: nil)
                }
            case .headTimedOut:
                reject(408, "The request head (request line and headers) did not arrive within \(Self.seconds(shared.limits.headTimeout)) s",
                       details: ["timeoutSeconds": seconds(shared.limits.headTimeout)], method: "INCOMPLETE", context: context)
            case .bodyStalled:
                reject(408, "The request body stopped arriving for \(Self.seconds(shared.limits.idleTimeout)) s",
                       details: ["timeoutSeconds": seconds(shared.limits.idleTimeout)], method: "INCOMPLETE", context: context)
            case .headTooLarge(let limit):
                reject(431, "The request head (request line and headers) is larger than the limit of \(limit) bytes",
                       details: ["limit": .number(Double(limit))], method: "INVALID", context: context)
            }
            return
        }
        // A stopping server asks each connection (each HTTP/2 stream) to finish (NIO's quiesce event).
        if event is ChannelShouldQuiesceEvent {
            stopRequested = true
            // An HTTP/2 stream ends with its END_STREAM: closing it here would reset a stream
            // whose answer is written but still held by flow control. The connection's
            // HTTP2GracefulClose closes once every stream has ended (or the grace cuts it).
            guard !isHTTP2 else { return }
            if case .idle = state, queued.isEmpty {
                finishClosing()
                closeAfterWrites(context: context)
            } else if case .blocked = state {
                finishClosing()
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
    /// too slow): a JSON error, journaled, then the connection closes. While a response
    /// is under way there is nothing to answer on, and the connection just closes.
    func reject(_ status: Int, _ reason: String, details: [String: JSONValue] = [:], method: String, context: ChannelHandlerContext) {
        switch state {
        case .idle, .receiving, .discarding, .awaitingUpload:
            clock?.stop()
            let plan = ResponsePlan.error(status, reason, details: details)
            var request = MockRequest(method: method, uri: "/", baseURL: shared.fallbackBaseURL, receivedAt: shared.engine.timeSource.now())
            if case .receiving(let head, _, let receivedAt) = state { request = makeRequest(head, body: Data(), receivedAt: receivedAt) }
            if case .discarding(let head, _, let receivedAt) = state { request = makeRequest(head, body: Data(), receivedAt: receivedAt) }
            if case .awaitingUpload(let head, _, let receivedAt) = state { request = makeRequest(head, body: Data(), receivedAt: receivedAt) }
            inFlight = (shared.engine.recordRejected(request, plan: plan), request.receivedAt)
            state = .responding
            queued.removeAll()
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
            execute(plan, for: head, context: context, keepAlive: false)
        case .responding, .closing, .hanging, .streaming, .blocked:
            finishClosing()
            context.close(promise: nil)
        }
    }

    /// The client went away with requests the server had read but not answered: one cut
    /// off mid-body, and complete ones queued behind a response (pipelining). Each is
    /// journaled as 499 (nginx's "client closed request"), so the journal holds every
    /// request the server received.
    func journalAbandoned() {
        let now = shared.engine.timeSource.now()
        func record(_ head: HTTPRequestHead, _ reason: String, receivedAt: Date) {
            let plan = ResponsePlan.error(499, reason)
            let id = shared.engine.recordRejected(makeRequest(head, body: Data(), receivedAt: receivedAt), plan: plan)
            shared.completed(id, receivedAt: receivedAt)
        }
        switch state {
        case .receiving(let head, _, let receivedAt), .discarding(let head, _, let receivedAt):
            record(head, "The client closed the connection before the request body ended", receivedAt: receivedAt)
            state = .closing
        case .awaitingUpload(let head, _, let receivedAt):
            record(head, "The client closed the connection while the network profile's uplink was still carrying its body", receivedAt: receivedAt)
            state = .closing
        default:
            break
        }
        var pending: HTTPRequestHead?
        while let part = queued.popFirst() {
            switch part {
            case .head(let head): pending = head
            case .body: break
            case .end:
                if let head = pending { record(head, "The client closed the connection before this pipelined request was answered", receivedAt: now) }
                pending = nil
            }
        }
        if let head = pending { record(head, "The client closed the connection before the request body ended", receivedAt: now) }
    }
}

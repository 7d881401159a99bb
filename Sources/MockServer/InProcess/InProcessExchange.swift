import Foundation
import MockAdmin
import MockCore

/// The rules every in-process transport shares (the `URLProtocol` of the contract harness,
/// the swift-openapi-runtime transport): how the engine is asked, what the client sees of
/// each fault, and how URLSession follows a redirect. Written once so that a client meets
/// the same answers over each, and the same as over a socket.
public enum InProcessExchange {
    /// URLSession's limit on redirects in a row (`URLError.httpTooManyRedirects` past it).
    public static let maximumRedirects = 16

    /// The pipeline's answer to `request`, as over a socket (its admin API answers
    /// `/__admin` calls). No socket carries the body here, so its time on the network
    /// profile's uplink is added to the delay.
    public static func answer(_ request: MockRequest, pipeline: Pipeline) -> (plan: ResponsePlan, exchange: Exchange) {
        var answer = pipeline.answer(request)
        if let profile = answer.plan.network {
            answer.plan.delay += profile.uploadDuration(bytes: request.body.count) * pipeline.engine.configuration.timeScale
        }
        return answer
    }

    /// A pipeline for an in-process transport that no server's pipeline answers for: the
    /// engine behind an admin API of its own (no token). Make it once per transport.
    public static func pipeline(for engine: MockEngine) -> Pipeline {
        Pipeline(engine: engine, control: AdminAPI(engine: engine))
    }

    /// How long the client waits for the answer's first byte, in plan time: the delay, or
    /// for ever for a `hang`. Past the client's timeout it fails with `URLError(.timedOut)`.
    public static func firstByteWait(_ plan: ResponsePlan) -> TimeInterval {
        plan.fault == .hang ? .infinity : plan.delay
    }

    /// The error URLSession on Apple platforms reports for a fault that leaves no response
    /// (nil for none, and for `truncatedBody`, whose response arrives and whose body then
    /// fails with `truncationError`).
    public static func error(for fault: Fault?) -> URLError.Code? {
        switch fault {
        case .hang?: return .timedOut
        case .connectionReset?, .emptyResponse?: return .networkConnectionLost
        case .malformedChunk?, .randomDataThenClose?: return .cannotParseResponse
        case .truncatedBody?, nil: return nil
        }
    }

    /// How a truncated body ends: the connection is lost.
    public static let truncationError = URLError.Code.networkConnectionLost

    /// The response head's fields: the plan's, with `Content-Length` the body's whole
    /// length (a truncated body promises more than it sends, as on the wire).
    public static func responseHeaders(_ plan: ResponsePlan) -> [(name: String, value: String)] {
        plan.headers.filter { $0.name.lowercased() != "content-length" }.map { ($0.name, $0.value) }
            + [("Content-Length", String(plan.body.count))]
    }

    /// The request a redirect leads to, as URLSession makes it.
    public struct Redirect: Sendable, Equatable {
        /// The `Location`, resolved against the request's URL.
        public let url: URL
        /// The method of the request that follows: `GET` where URLSession turns the method into one, else the original.
        public let method: String
        /// Whether the body and its `Content-Type` and `Content-Length` are dropped.
        public let dropsBody: Bool
    }

    /// Where a `status` with `location` sends a `method` request to `url`, as URLSession
    /// follows it: 301 and 302 turn a POST into a GET without a body, 303 any method but
    /// HEAD; 307 and 308 keep the method and body. Nil when `status` is no redirect or
    /// there is no usable `Location`.
    public static func redirect(status: Int, location: String?, method: String, from url: URL) -> Redirect? {
        guard [301, 302, 303, 307, 308].contains(status), let location,
              let target = URL(string: location, relativeTo: url)?.absoluteURL else { return nil }
        let becomesGet = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        return Redirect(url: target, method: becomesGet ? "GET" : method, dropsBody: becomesGet)
    }
}

import Foundation
import HTTPTypes
import MockCore
import MockServer
import OpenAPIRuntime

/// A `ClientTransport` for a client made by Apple's swift-openapi-generator that answers
/// from a `MockEngine` in process: no sockets, no `URLSession`.
///
///     let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
///     let client = Client(serverURL: URL(string: "http://mock.local")!, transport: MockEngineTransport(engine: engine))
///     let page = try await client.getProducts(query: .init(pageNo: 1, itemsPerPage: 20)).ok.body.json
///
/// Requests take the same path as over a socket (`AdminAPI`, so `/__admin` calls work,
/// then the scenario layer and the simulators) and are journaled; the plan's delay, its
/// body pacing and its network profile (the upload's time on the uplink, then the round
/// trip, the downlink's pace and the loss) are waited out on `clock`. A profile's DNS and
/// handshake wait is not: there is no connection. Each fault becomes the error
/// `URLSessionTransport` passes on from URLSession on Apple platforms:
///
/// | the plan | what `send` does |
/// |---|---|
/// | a delay, a paced body | waits on `clock`; the body arrives chunk by chunk |
/// | a wait for a byte longer than `timeout` (a `hang`, a long delay or pause) | throws `URLError(.timedOut)` after `timeout` |
/// | `connectionReset`, `emptyResponse` | throws `URLError(.networkConnectionLost)` |
/// | `malformedChunk`, `randomDataThenClose` | throws `URLError(.cannotParseResponse)` |
/// | `truncatedBody` | returns the response; its body ends after half the bytes with `URLError(.networkConnectionLost)` |
/// | a 301, 302, 303, 307 or 308 with a `Location` | follows it, as URLSession does (a POST becomes a GET on 301/302, anything but HEAD on 303); `URLError(.httpTooManyRedirects)` past 16, `URLError(.cannotConnectToHost)` for another host |
/// | the calling task is cancelled | throws `URLError(.cancelled)`, as URLSession does for a cancelled task |
///
/// The generated client wraps each of these in its `ClientError` (`underlyingError`). Any
/// base URL reaches the engine; an endless body (the admin API's event stream) is not
/// carried.
public struct MockEngineTransport: ClientTransport {
    /// The engine that answers every request.
    public let engine: MockEngine
    /// The pipeline it answers through: the engine behind an admin API of its own, built once.
    let pipeline: Pipeline
    /// The longest wait for a byte, as `URLSessionConfiguration.timeoutIntervalForRequest`.
    public let timeout: Duration
    let sleepOnClock: @Sendable (Duration) async throws -> Void

    /// URLSession's own default request timeout.
    public static let defaultTimeout: Duration = .seconds(60)
    /// URLSession's limit on redirects in a row.
    static let maximumRedirects = InProcessExchange.maximumRedirects

    /// A transport answering from `engine`, waiting on `clock` (a test clock makes delays
    /// instant and exact).
    public init(engine: MockEngine, timeout: Duration = defaultTimeout, clock: some Clock<Duration> = ContinuousClock()) {
        self.engine = engine
        pipeline = InProcessExchange.pipeline(for: engine)
        self.timeout = timeout
        sleepOnClock = { try await clock.sleep(for: $0) }
    }

    /// Answers `request` through the engine as the table above says; a fault or timeout throws the `URLError` URLSession would.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var bytes = Data()
        if let body { bytes = Data(try await ArraySlice(collecting: body, upTo: .max)) }
        var mockRequest = try Self.mockRequest(request, body: bytes, baseURL: baseURL, receivedAt: engine.timeSource.now())
        for hop in 0... {
            let (plan, exchange) = InProcessExchange.answer(mockRequest, pipeline: pipeline)
            let finish: @Sendable () -> Void = { exchange.finished() }
            do {
                try await waitForByte(InProcessExchange.firstByteWait(plan))
                if let next = try Self.redirect(mockRequest, plan: plan, hop: hop, now: engine.timeSource.now()) {
                    finish()
                    mockRequest = next
                    continue
                }
                return try response(plan, method: mockRequest.method, finish: finish)
            } catch {
                finish()
                throw error
            }
        }
        preconditionFailure("unreachable: the redirect loop returns or throws")
    }

    /// The response head at once, or the fault's error; the body as the plan paces it.
    func response(_ plan: ResponsePlan, method: String, finish: @escaping @Sendable () -> Void) throws(URLError) -> (HTTPResponse, HTTPBody?) {
        if let failure = InProcessExchange.error(for: plan.fault) { throw URLError(failure) }
        let head = Self.responseHead(plan)
        let bytes = method == "HEAD" ? Data() : plan.body
        if plan.fault == .truncatedBody {
            let half = ArraySlice(bytes.prefix(bytes.count / 2))
            let stream = ResponseBodyStream(bytes: half, pacing: plan.pacing, failure: URLError(InProcessExchange.truncationError), transport: self, finish: finish)
            return (head, HTTPBody(stream, length: .known(Int64(bytes.count)), iterationBehavior: .single))
        }
        guard !bytes.isEmpty else {
            finish()
            return (head, nil)
        }
        guard let pacing = plan.pacing, bytes.count > pacing.chunkSize else {
            finish()
            return (head, HTTPBody(bytes))
        }
        let stream = ResponseBodyStream(bytes: ArraySlice(bytes), pacing: pacing, failure: nil, transport: self, finish: finish)
        return (head, HTTPBody(stream, length: .known(Int64(bytes.count)), iterationBehavior: .single))
    }

    /// Waits `seconds` (plan time, already scaled) for the next byte; past `timeout`,
    /// waits out the timeout and throws `URLError(.timedOut)`. Cancellation throws
    /// `URLError(.cancelled)`.
    func waitForByte(_ seconds: TimeInterval) async throws(URLError) {
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        guard seconds > 0 else { return }
        let timedOut = seconds > timeout.seconds
        do {
            try await sleepOnClock(timedOut ? timeout : .seconds(seconds))
        } catch {
            throw URLError(.cancelled)
        }
        if timedOut { throw URLError(.timedOut) }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

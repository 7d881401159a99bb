import ContractHarness
import Foundation
import MockCore
import OpenAPIDocumentAPI

extension OpenAPIContract {
    /// The call's requests reach the operation's route and keep the document. The mock
    /// answers a request that breaks the document as leniently as a real server might
    /// (the documented answer), so the client seems to work; this check still fails,
    /// naming each request and what in it is wrong.
    static func request<Client: Sendable>(_ id: String, _ operation: DocumentOperation, _ context: DocumentContext,
                                          _ invoke: @escaping @Sendable (CheckRun<Client>) async throws -> Returned) -> ContractCheck<Client> {
        let route = operation.routeName(api: context.api)
        let target = context.describe(operation)
        return ContractCheck(id, .required, "\(operation.name) sends \(target), keeping the document (parameters, body), also where the server is lenient") { run in
            let outcome = await run.outcome(within: run.timeout + 5) { try await invoke(run) }
            let sent = run.expectations.requests
            var differences: [String] = []
            if sent.isEmpty {
                differences.append("the call sent no request")
            } else if !sent.contains(where: { $0.answeredBy == route }) {
                differences.append("no request reached \(target): the call sent " + sent.map { "\($0.request.method) \($0.request.asRequest.uri)" }.joined(separator: ", "))
            }
            for event in sent {
                let line = "#\(event.id) \(event.request.method) \(event.request.asRequest.uri)"
                if event.answeredBy?.hasPrefix(context.api + ".") != true, event.violations.isEmpty {
                    differences.append("\(line) is no operation of the document (answered \(event.status))")
                }
                differences += event.violations.map { "\(line): \($0.path): \($0.reason)" }
            }
            try run.require(differences.isEmpty,
                            "\(operation.name) to send \(target) as the document says (GET /__admin/openapi/\(context.api))",
                            actual: "the call \(outcome.summary); what it sent differs", differences: differences)
        }
    }

    /// The call decodes each documented success and throws on each documented error
    /// status, without a `DecodingError`. The mock gives each answer the way a request with
    /// `Prefer: code=…, example=…` gets it: the client's own request (from a first call) is
    /// answered so by the document API, and that answer is served to the client's calls.
    ///
    /// Each call may last `callLimit` seconds (the timeout and its margin: every answer
    /// comes at once), so a call that never ends is named with its answer and the calls
    /// after it still run; each call is marked (`CheckRun.mark(_:)`), so a check stopped at
    /// the suite's time limit names the answer it was giving.
    static func answers<Client: Sendable>(_ id: String, _ operation: DocumentOperation, _ context: DocumentContext, callLimit: TimeInterval,
                                          _ invoke: @escaping @Sendable (CheckRun<Client>) async throws -> Returned) -> ContractCheck<Client> {
        let route = operation.routeName(api: context.api)
        let target = context.describe(operation)
        let answers = operation.answers
        let successes = answers.filter(\.isSuccess).map(\.description)
        let errors = answers.filter { !$0.isSuccess }.map(\.description)
        let summary = "\(operation.name) decodes each documented success (\(successes.joined(separator: ", ")))"
            + (errors.isEmpty ? "" : " and throws, not a decoding error, on \(errors.joined(separator: ", "))")
        return ContractCheck(id, .required, summary) { run in
            // A first call, answered as with no scenario, shows the request the client sends.
            run.mark("the first call of \(operation.name), answered as with no scenario")
            let first = await run.outcome(within: callLimit) { try await invoke(run) }
            guard let sent = run.expectations.requests.last(where: { $0.answeredBy == route }) else {
                throw run.expectations.violation("\(operation.name) to send \(target), to be given each documented answer",
                                                 actual: "the call \(first.summary) and no request reached \(target)")
            }
            // The servers' path the client used, where the document has several.
            let base = context.document.basePaths.first { operation.requestPattern(under: $0).path?.match(sent.request.path) != nil } ?? context.basePath
            let pattern = operation.requestPattern(under: base)
            var problems: [String] = []
            var stillRunning = 0
            for (index, answer) in answers.enumerated() {
                var headers = sent.request.headers
                headers.set("Prefer", answer.prefer)
                let request = sent.request.asRequest
                let plan = run.truth(request.method, request.uri, body: request.body, headers: headers)
                guard plan.status == answer.status else {
                    let reason = JSONValue(parsing: plan.body)?["reason"]?.stringValue.map { ": \($0)" } ?? ""
                    problems.append("\(answer): the document API answers the request the client sent with \(plan.status) instead\(reason)")
                    continue
                }
                try serve(plan, as: "documented-\(index)", to: pattern, run)
                run.mark("the call of \(operation.name) given \(answer) (answer \(index + 1) of \(answers.count))")
                let outcome = await run.outcome(within: callLimit) { () async -> Result<Returned, any Error> in
                    do { return .success(try await invoke(run)) } catch { return .failure(error) }
                }
                if case .stillRunning = outcome { stillRunning += 1 }
                if let problem = judge(outcome, answer, body: plan.body, events: plan.eventStream?.events.count) { problems.append(problem) }
            }
            guard problems.isEmpty else {
                var violation = run.expectations.violation(
                    "\(operation.name) (\(target)) to return on each documented success and throw, not a DecodingError, on each documented error",
                    actual: "\(problems.count) of \(answers.count) documented answers went wrong", differences: problems)
                // Only calls that outlived an answer given at once: a stalled machine looks the
                // same, until the check runs again; a client that hangs hangs every time.
                violation.isTimingOnly = stillRunning == problems.count
                throw violation
            }
        }
    }

    /// What is wrong with the way a call met a documented answer, if anything. `events`: the
    /// answer was a documented event stream of that many events, given as events (its
    /// events are not judged here: they are not one JSON body).
    static func judge(_ outcome: CallOutcome<Result<Returned, any Error>>, _ answer: DocumentedAnswer, body: Data, events: Int? = nil) -> String? {
        let sentBody = events.map { "an event stream of \($0) events" } ?? (body.isEmpty ? "an empty body" : "the body \(preview(body))")
        switch outcome {
        case .stillRunning(let seconds):
            return "\(answer): the call was still running after \(String(format: "%.2f", seconds)) s (\(sentBody))"
        case .returned(.success(let value), _):
            guard !answer.isSuccess else { return nil }
            return "\(answer): the call returned \(value) — an error status taken for success (\(sentBody))"
        case .returned(.failure(let error), _):
            let described = ContractViolation.describe(error)
            if answer.isSuccess {
                return "\(answer): the call threw \(described) on \(sentBody)"
            }
            guard decodingError(in: error, depth: 3) != nil else { return nil }
            return "\(answer): the call threw \(described) — a decoding error on an error status: the body was decoded as a success, "
                + "or the client's error model does not fit \(sentBody)"
        case .threw(let error, _):
            // Not met: the call's own error comes back in the `Result`.
            return "\(answer): the call threw \(error)"
        }
    }

    /// Serves `plan` to the requests `pattern` matches from now on, as a scenario of this
    /// check's server: a documented event stream (the client asked with `stream: true` or
    /// `Accept`) as its events, each when it is due, anything else as its body.
    static func serve<Client: Sendable>(_ plan: ResponsePlan, as name: String, to pattern: RequestPattern, _ run: CheckRun<Client>) throws {
        var headers: [String: String] = [:]
        for field in plan.headers where headers[field.name] == nil { headers[field.name] = field.value }
        let outcome: Outcome
        if let stream = plan.eventStream {
            outcome = .eventStream(stream, status: plan.status, headers: headers)
        } else {
            outcome = Outcome(.stub(status: plan.status, headers: headers, body: plan.body.isEmpty ? .empty : .bytes(plan.body)))
        }
        var library = run.engine.scenarios.library
        library.add(Scenario(name: name, rules: [Rule(name, pattern, always: outcome)]))
        run.engine.scenarios.replaceLibrary(library)
        try run.use(name)
    }

    /// A `DecodingError` in an error or its stored values, up to `depth` levels down.
    static func decodingError(in error: any Error, depth: Int) -> DecodingError? {
        if let decoding = error as? DecodingError { return decoding }
        return nested(in: error, depth: depth)
    }

    private static func nested(in value: Any, depth: Int) -> DecodingError? {
        guard depth > 0 else { return nil }
        for child in Mirror(reflecting: value).children {
            if let decoding = child.value as? DecodingError { return decoding }
            if let found = nested(in: child.value, depth: depth - 1) { return found }
        }
        return nil
    }

    /// Up to 200 characters of a body.
    static func preview(_ body: Data) -> String {
        let text = String(decoding: body.prefix(200), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
        return text + (body.count > 200 ? "…" : "")
    }
}

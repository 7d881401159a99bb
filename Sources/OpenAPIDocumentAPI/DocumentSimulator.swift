import Foundation
import MockCore

/// A document API as one engine serves it: every operation's route under each base
/// path, answered from the document, checked against it with `--strict`, and kept as
/// state where the paths describe collections (unless stateless).
public struct DocumentSimulator: ServedAPI {
    let apiName: String
    let document: OpenAPIDocument
    let answers: DocumentAnswers
    let strict: Bool
    let stateful: Bool
    let store = ResourceStore()

    init(apiName: String, document: OpenAPIDocument, context: APIContext, stateful: Bool) {
        self.apiName = apiName
        self.document = document
        answers = DocumentAnswers(document: document, seed: context.seed, timeScale: context.timeScale)
        strict = context.strict
        self.stateful = stateful
    }

    /// Every operation's route under each base path, concrete paths before templated ones
    /// (the patterns and their order are the document's, made once for every engine).
    public var routes: [Route] {
        let simulator = self
        return document.routeOrder.map { entry in
            let operation = document.operations[entry.operation]
            let base = entry.base
            return Route(operation.routeName(api: apiName), entry.pattern) { request, _ in
                simulator.answer(operation, base: base, request)
            }
        }
    }

    /// A document path as a route: a segment mixing text and a parameter (`{name}.json`)
    /// matches any one segment.
    static func routeTemplate(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.contains("{") && !(segment.hasPrefix("{") && segment.hasSuffix("}") && segment.filter { $0 == "{" }.count == 1) ? "*" : String(segment)
        }.joined(separator: "/")
    }

    /// The document as read and repaired, with its checker made once.
    public var openAPI: OpenAPISource? {
        OpenAPISource(document: document.json, conformance: document.conformance)
    }

    /// The items created in each collection, to save in a snapshot.
    public func snapshot() -> DocumentAPIState { store.snapshot() }
    /// Puts back the collections `snapshot()` saved.
    public func restore(_ snapshot: DocumentAPIState) { store.restore(snapshot) }

    // MARK: Answering

    func answer(_ operation: DocumentOperation, base: String, _ request: MockRequest) -> ResponsePlan {
        let prefer = Prefer(request)
        if !operation.security.isSatisfied(by: request) { return unauthorized(operation, request) }
        let violations = document.conformance.violations(of: request) ?? []
        // A more literal path of the document that lacks this method (`DELETE /pets/mine`
        // beside `DELETE /pets/{id}`) is that path's 405, as its server answers.
        if let wrongMethod = violations.first(where: { $0.path == "$.method" }) {
            var plan = ResponsePlan.error(405, wrongMethod.reason)
            let allowed = document.operations.filter { operation in
                document.basePaths.contains { base in request.path.hasPrefix(base) && PathPattern(base + operation.path).match(request.path) != nil }
            }
            let methods = Set(allowed.map(\.method)).sorted()
            let literal = methods.isEmpty ? [] : methods
            plan.headers.add("Allow", literal.joined(separator: ", "))
            return plan
        }
        if strict, !violations.isEmpty {
            return rejection(operation, violations, request)
        }
        // A request for a stream is answered by the stream, not by the stored items.
        if stateful, !prefer.choosesAnswer, !DocumentAnswers.asksForEventStream(operation, request), let plan = stateAnswer(operation, base: base, request, prefer) { return plan }
        switch answers.choose(operation, prefer, request) {
        case .failure(let box): return box.plan
        case .success(let chosen): return answers.plan(chosen, request)
        }
    }

    /// The answer to a request that breaks the document, with the status
    /// `rejectionStatus(_:)` chooses, the documented body when it has one (its text fields
    /// carrying the reason, in its own media type) and the violations by JSON path and pointer.
    private func rejection(_ operation: DocumentOperation, _ violations: [RequestViolation], _ request: MockRequest) -> ResponsePlan {
        let status = Self.rejectionStatus(operation, violations)
        let reason = violations.map(\.description).joined(separator: "; ")
        let listed: JSONValue = .array(violations.map { violation in
            ["path": .string(violation.path), "pointer": .string(Self.pointer(violation.path)), "reason": .string(violation.reason)]
        })
        let body: JSONValue = ["error": true, "reason": .string(reason), "violations": listed]
        if let index = operation.response(for: status), let content = operation.responses[index].contents.first(where: \.isJSON),
           let schema = content.schema {
            let documented = content.servedExample?.value ?? answers.value(schema, key: "\(operation.method) \(operation.path) \(status) rejection")
            let chosen = DocumentAnswers.Chosen(response: operation.responses[index], status: status, content: content,
                                                body: Self.withReason(documented, reason, schema: schema, validator: document.validator, fallback: documented))
            return answers.plan(chosen, request)
        }
        if let index = operation.response(for: status) {
            // A documented answer without a JSON body: its status, headers and media type.
            let chosen = DocumentAnswers.Chosen(response: operation.responses[index], status: status,
                                                content: operation.responses[index].contents.first, body: nil)
            var plan = answers.plan(chosen, request)
            if plan.body.isEmpty, plan.headers["Content-Type"] == nil {
                plan = .json(status, body)
            }
            return plan
        }
        return .json(status, body)
    }

    /// The status of an answer to a request that breaks the document: 400 where the
    /// operation documents it, else 422 where it does, else 400 by its `4XX` or `default`;
    /// else, when only path parameters are wrong (a malformed id), its documented 404; else
    /// an undocumented 400 (the document's notes name such operations).
    static func rejectionStatus(_ operation: DocumentOperation, _ violations: [RequestViolation] = []) -> Int {
        if operation.documents(400) { return 400 }
        if operation.documents(422) { return 422 }
        if operation.response(for: 400) != nil { return 400 }
        if !violations.isEmpty, violations.allSatisfy({ $0.path.hasPrefix("$.path.") }), operation.documents(404) { return 404 }
        return 400
    }

    /// The answer to a request without the credentials the operation asks for: 401 where
    /// documented, else 403 where documented, else 401 (by a `4XX` or `default`, or
    /// undocumented), with the documented body when there is one.
    private func unauthorized(_ operation: DocumentOperation, _ request: MockRequest) -> ResponsePlan {
        let reason = "the operation needs credentials: \(operation.security.described)"
        let status = !operation.documents(401) && operation.documents(403) ? 403 : 401
        var plan: ResponsePlan
        if operation.response(for: status) != nil {
            var prefer = Prefer(request)
            prefer.code = status
            prefer.example = nil
            switch answers.choose(operation, prefer, request) {
            case .success(var chosen):
                if let schema = chosen.content?.schema, let body = chosen.body {
                    chosen.body = Self.withReason(body, reason, schema: schema, validator: document.validator, fallback: body)
                }
                plan = answers.plan(chosen, request)
            case .failure:
                plan = .error(status, reason)
            }
        } else {
            plan = .error(status, reason)
        }
        plan.headers.set("WWW-Authenticate", operation.security.challenge)
        return plan
    }

    /// `$.body.name` as the JSON pointer into the body, `/name`; other places as they are.
    static func pointer(_ path: String) -> String {
        guard path.hasPrefix("$.body") else { return path }
        var pointer = ""
        var token = ""
        for character in path.dropFirst(6) {
            switch character {
            case ".", "[":
                if !token.isEmpty { pointer += "/" + JSONPointer.escape(token) }
                token = ""
            case "]":
                pointer += "/" + token
                token = ""
            default: token.append(character)
            }
        }
        if !token.isEmpty { pointer += "/" + JSONPointer.escape(token) }
        return pointer
    }

    /// A documented error body with its message fields set to `reason` where the schema
    /// lets them be text; `fallback` when the documented body is not an object.
    static func withReason(_ documented: JSONValue, _ reason: String, schema: JSONValue, validator: SchemaValidator, fallback: JSONValue) -> JSONValue {
        guard case .object(var members) = documented else { return fallback }
        let properties = ResourceCollection.flattenedProperties(schema, validator: validator)
        for name in ["message", "reason", "detail", "error", "error_description", "title", "description"] {
            guard let property = properties[name], validator.conforms(.string(reason), to: property) else { continue }
            members[name] = .string(reason)
        }
        let result = JSONValue.object(members)
        return validator.conforms(result, to: schema) ? result : documented
    }
}

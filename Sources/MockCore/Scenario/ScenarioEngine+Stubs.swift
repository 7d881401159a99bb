import Foundation

/// Building a stub's answer: its body, event stream or WebSocket, with templates filled from
/// the request and the rule that chose it.
extension ScenarioEngine {
    /// A stub's answer. `decided`: the decision that chose `outcome`, whose rule's path
    /// template names a templated stub's path parameters.
    func stub(status: Int, headers: [String: String], body: StubBody, outcome: Outcome, _ request: MockRequest,
                      decided: Decided) -> ResponsePlan {
        var body = body
        var fields = HeaderFields(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        if case .template(let template, let json) = body {
            var context = templateContext(request, decided: decided)
            fields = Self.render(fields, &context)
            body = .text(template.render(&context, escaping: json ? .json : .none))
            if json, !fields.contains("Content-Type") { fields.add("Content-Type", "application/json; charset=utf-8") }
        }
        if let type = body.defaultContentType, !fields.contains("Content-Type") { fields.add("Content-Type", type) }
        if outcome.conditional, status == 200, request.method == "GET" || request.method == "HEAD",
           ConditionalRequest.isNotModified(request, etag: fields["ETag"], lastModified: fields["Last-Modified"].flatMap(HTTPDate.parse)) {
            fields.remove("Content-Type")
            return ResponsePlan(status: 304, headers: fields, answeredBy: "scenario-stub")
        }
        return ResponsePlan(status: status, headers: fields, body: body.data, answeredBy: "scenario-stub")
    }

    /// An event stream's answer: its head, and its events with their templates filled and
    /// their delays scaled.
    func eventStream(status: Int, headers: [String: String], _ stream: EventStream, _ request: MockRequest,
                             decided: Decided) -> ResponsePlan {
        var fields = HeaderFields(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        var rendered = stream
        if stream.isTemplated {
            var context = templateContext(request, decided: decided)
            fields = Self.render(fields, &context)
            rendered = stream.rendered(&context)
        }
        for field in EventStream.defaultHeaders where !fields.contains(field.name) { fields.add(field.name, field.value) }
        var plan = ResponsePlan(status: status, headers: fields, answeredBy: "scenario-stub")
        plan.eventStream = rendered.scaled(by: timeScale)
        return plan
    }

    /// A WebSocket's answer: 101 with the script, scaled, and what its templates read; a
    /// request that asks for no upgrade gets the 426 a WebSocket server answers, and a
    /// malformed opening handshake a 400 that says what is wrong.
    func webSocket(headers: [String: String], _ script: WebSocketScript, _ request: MockRequest, decided: Decided) -> ResponsePlan {
        switch WebSocketHandshake.check(request) {
        case .upgrade: break
        case .notAnUpgrade: return WebSocketHandshake.refusal(request).answered(by: "scenario-stub")
        case .malformed(let reason): return WebSocketHandshake.malformed(reason).answered(by: "scenario-stub")
        }
        var fields = HeaderFields(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        var context = templateContext(request, decided: decided)
        if script.isTemplated { fields = Self.render(fields, &context) }
        if let subprotocol = script.subprotocol, WebSocketHandshake.offeredSubprotocols(request).contains(subprotocol) {
            fields.set("Sec-WebSocket-Protocol", subprotocol)
        }
        var plan = ResponsePlan(status: 101, headers: fields, answeredBy: "scenario-stub")
        plan.setWebSocket(script.scaled(by: timeScale), pathParameters: context.pathParameters, generator: context.generator)
        return plan
    }

    /// What a templated stub of `decided`'s rule fills its holes from: the request, the
    /// rule's path parameters, and a generator split from the engine's.
    func templateContext(_ request: MockRequest, decided: Decided) -> ResponseTemplate.Context {
        let rule = decided.decision.map { decided.shared.scenario.rules[$0.ruleIndex] }
        return ResponseTemplate.Context(request: request, pathParameters: rule?.request.path?.match(request.path) ?? [:],
                                        generator: templateRandom.withLock { $0.split() })
    }

    /// Header fields whose values are templates, filled from `context`.
    static func render(_ fields: HeaderFields, _ context: inout ResponseTemplate.Context) -> HeaderFields {
        HeaderFields(fields.map { field in
            guard let header = try? ResponseTemplate(field.value) else { return (field.name, field.value) }
            return (field.name, header.render(&context, escaping: .header))
        })
    }
}

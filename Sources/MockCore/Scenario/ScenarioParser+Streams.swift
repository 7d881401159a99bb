import Foundation

/// Scenario files' streams: a response with an `eventStream` (server-sent events) or a
/// `webSocket` (a scripted conversation), what else it may hold, and its templates. The
/// formats themselves: `ScenarioParser+EventStreams`, `+WebSockets`, `+StreamFaults`.
extension ScenarioParser {
    /// Why a response key does not go with a stream.
    static let notWithStreams: [String: String] = [
        "simulator": "cannot be combined with a stream: the stream is the answer",
        "json": "a stream has no body: its events or messages are what it sends",
        "text": "a stream has no body: its events or messages are what it sends",
        "base64": "a stream has no body: its events or messages are what it sends",
        "bodyFile": "a stream has no body: its events or messages are what it sends",
        "conditional": "a stream is never answered 304",
        "transform": "a transform changes a body, and a stream has none (a streamFault breaks a stream)",
        "throttle": "a stream is paced by its own delays (or a slowDrip streamFault), not a throttle",
    ]

    /// The source of a response with an `eventStream` or a `webSocket`.
    func streamSource(_ members: [String: JSONValue], streams: [String], bodies: [String], _ path: String) -> Outcome.Source? {
        guard streams.count == 1, let key = streams.first, let value = members[key] else {
            reader.problem(path, "give an eventStream or a webSocket, not both")
            return nil
        }
        for other in ["simulator", "conditional", "transform", "throttle"] + bodies where members[other] != nil {
            reader.problem("\(path).\(other)", Self.notWithStreams[other] ?? "does not go with a stream")
        }
        if key == "webSocket", members["status"] != nil {
            reader.problem("\(path).status", "a WebSocket answers 101 Switching Protocols (or 426 to a request that asks for no upgrade)")
        }
        let headers = self.headers(members["headers"], "\(path).headers")
        let templated = flag(members["templated"], "\(path).templated")
        var holes = false
        if templated {
            for (name, text) in headers.sorted(by: { $0.key < $1.key }) {
                holes = template(text, readsMessage: false, "\(path).headers.\(name)").map(\.hasHoles) ?? false || holes
            }
        }
        let source: Outcome.Source?
        if key == "eventStream" {
            let status = members["status"] == nil ? 200 : reader.integer(members["status"], "\(path).status", range: 200...299)
            let stream = eventStream(value, "\(path).eventStream", templated: templated, holes: &holes)
            source = status.flatMap { status in stream.map { .eventStream(status: status, headers: headers, $0) } }
        } else {
            source = webSocketScript(value, "\(path).webSocket", templated: templated, holes: &holes).map { .webSocket(headers: headers, $0) }
        }
        if templated, !holes { reader.problem("\(path).templated", "neither a header nor an event or message has a {{…}} hole to fill in") }
        return source
    }

    /// `text` as a template, its problems reported at `path`; a `{{message}}` hole only
    /// where a client message is answered.
    func template(_ text: String, readsMessage allowed: Bool, _ path: String) -> ResponseTemplate? {
        do {
            let template = try ResponseTemplate(text)
            if template.readsMessage, !allowed {
                reader.problem(path, "{{message}} is the client message a WebSocket reply answers; only onMessage replies have one")
                return nil
            }
            return template
        } catch {
            reader.problem(path, error.description)
            return nil
        }
    }
}

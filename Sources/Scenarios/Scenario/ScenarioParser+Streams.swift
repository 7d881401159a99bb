import Foundation

/// Scenario files' streams: a response's `eventStream` (server-sent events), `webSocket`
/// (a scripted conversation) and `streamFault`. Times are milliseconds, as everywhere in
/// files; the values hold seconds.
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

    // MARK: Event streams

    func eventStream(_ json: JSONValue, _ path: String, templated: Bool, holes: inout Bool) -> EventStream? {
        guard let members = reader.object(json, path, keys: ["events", "repeat", "autoIds", "keepOpen"]) else { return nil }
        guard let list = reader.array(members["events"], "\(path).events", required: true) else { return nil }
        if list.isEmpty { reader.problem("\(path).events", "must not be empty") }
        if list.count > 10_000 { reader.problem("\(path).events", "at most 10000 events, found \(list.count)") }
        var events: [ServerSentEvent] = []
        for (index, element) in list.enumerated() {
            if let event = serverSentEvent(element, "\(path).events[\(index)]", templated: templated, holes: &holes) { events.append(event) }
        }
        var repetition = EventStream.Repetition.once
        if let given = members["repeat"] {
            if case .string(let text) = given {
                if text == "forever" { repetition = .forever } else { reader.problem("\(path).repeat", "a number of times, or \"forever\"; found \"\(text)\"") }
            } else if let times = reader.integer(given, "\(path).repeat", range: 1...1_000_000) {
                repetition = times == 1 ? .once : .times(times)
            }
        }
        let keepOpen = flag(members["keepOpen"], "\(path).keepOpen")
        let stream = EventStream(events, repetition: repetition, autoIDs: flag(members["autoIds"], "\(path).autoIds"), keepOpen: keepOpen)
        if repetition == .forever {
            if keepOpen { reader.problem("\(path).keepOpen", "a stream without end never reaches an end to stay open at") }
            if events.count == list.count, stream.roundDuration == 0 {
                reader.problem("\(path).repeat", "a stream without end needs a delay in its events, or it would write without end at once")
            }
        }
        return events.count == list.count && !list.isEmpty ? stream : nil
    }

    func serverSentEvent(_ json: JSONValue, _ path: String, templated: Bool, holes: inout Bool) -> ServerSentEvent? {
        guard let members = reader.object(json, path, keys: ["event", "data", "json", "id", "retry", "comment", "delay"]) else { return nil }
        let before = reader.problems.count
        if members["data"] != nil, members["json"] != nil { reader.problem(path, "give data (text) or json, not both") }
        if ["data", "json", "comment", "id", "retry"].allSatisfy({ members[$0] == nil }) {
            reader.problem(path, "an event needs data, json, a comment, an id or retry")
        }
        var event = ServerSentEvent()
        if let name = reader.string(members["event"], "\(path).event") {
            if let problem = ServerSentEvent.fieldProblem(name) { reader.problem("\(path).event", problem) }
            event.event = name
        }
        if let id = members["id"] {
            var text: String?
            if case .number = id { text = reader.integer(id, "\(path).id", range: 0...Int.max).map(String.init) } else { text = reader.string(id, "\(path).id") }
            if let text, let problem = ServerSentEvent.fieldProblem(text) { reader.problem("\(path).id", problem) }
            event.id = text
        }
        event.retry = reader.integer(members["retry"], "\(path).retry", range: 0...86_400_000)
        event.comment = reader.string(members["comment"], "\(path).comment")
        event.delay = (reader.number(members["delay"], "\(path).delay", range: 0...3_600_000) ?? 0) / 1000
        if let text = reader.string(members["data"], "\(path).data") {
            event.data = .text(text)
            if templated, let template = template(text, readsMessage: false, "\(path).data") {
                event.data = .template(template, json: false)
                holes = holes || template.hasHoles
            }
        }
        if let value = members["json"] {
            event.data = .json(value)
            if templated, let template = template(ServerSentEvent.Payload.json(value).content, readsMessage: false, "\(path).json") {
                event.data = .template(template, json: true)
                holes = holes || template.hasHoles
            }
        }
        return reader.problems.count == before ? event : nil
    }

    // MARK: WebSockets

    func webSocketScript(_ json: JSONValue, _ path: String, templated: Bool, holes: inout Bool) -> WebSocketScript? {
        guard let members = reader.object(json, path, keys: ["subprotocol", "onConnect", "onMessage", "pushes", "close"]) else { return nil }
        let before = reader.problems.count
        var script = WebSocketScript()
        if let subprotocol = reader.string(members["subprotocol"], "\(path).subprotocol") {
            if subprotocol.isEmpty || subprotocol.contains(where: { $0 == "," || $0 == " " || !$0.isASCII || $0.isNewline }) {
                reader.problem("\(path).subprotocol", "a subprotocol is one token (no spaces or commas), such as \"chat\"")
            }
            script.subprotocol = subprotocol
        }
        script.onConnect = messages(members["onConnect"], "\(path).onConnect", templated: templated, readsMessage: false, holes: &holes)
        for (index, element) in (reader.array(members["onMessage"], "\(path).onMessage") ?? []).enumerated() {
            let itemPath = "\(path).onMessage[\(index)]"
            guard let item = reader.object(element, itemPath, keys: ["name", "match", "reply", "close"]) else { continue }
            if item["reply"] == nil, item["close"] == nil { reader.problem(itemPath, "needs a reply, a close, or both") }
            let match = item["match"].flatMap { messagePattern($0, "\(itemPath).match") } ?? .any
            let reply = messages(item["reply"], "\(itemPath).reply", templated: templated, readsMessage: true, holes: &holes)
            let close = item["close"].flatMap { self.close($0, "\(itemPath).close") }
            script.onMessage.append(WebSocketReply(reader.string(item["name"], "\(itemPath).name"), match: match, messages: reply, close: close))
        }
        for (index, element) in (reader.array(members["pushes"], "\(path).pushes") ?? []).enumerated() {
            let itemPath = "\(path).pushes[\(index)]"
            guard let item = reader.object(element, itemPath, keys: ["every", "times", "start", "messages"]) else { continue }
            let every = reader.number(item["every"], "\(itemPath).every", required: true, range: 1...3_600_000)
            let times = reader.integer(item["times"], "\(itemPath).times", range: 1...1_000_000)
            let start = reader.number(item["start"], "\(itemPath).start", range: 0...3_600_000) ?? 0
            if item["messages"] == nil { reader.problem("\(itemPath).messages", "required key is missing") }
            let list = messages(item["messages"], "\(itemPath).messages", templated: templated, readsMessage: false, holes: &holes)
            if case .array(let given)? = item["messages"], given.isEmpty { reader.problem("\(itemPath).messages", "must not be empty") }
            if let every { script.pushes.append(WebSocketPush(every: every / 1000, times: times, start: start / 1000, messages: list)) }
        }
        script.close = members["close"].flatMap { close($0, "\(path).close") }
        return reader.problems.count == before ? script : nil
    }

    /// A list of messages to send; problems reported, the good ones kept.
    func messages(_ json: JSONValue?, _ path: String, templated: Bool, readsMessage: Bool, holes: inout Bool) -> [WebSocketMessage] {
        var list: [WebSocketMessage] = []
        for (index, element) in (reader.array(json, path) ?? []).enumerated() {
            if let message = message(element, "\(path)[\(index)]", templated: templated, readsMessage: readsMessage, holes: &holes) { list.append(message) }
        }
        return list
    }

    static let messagePayloadKeys = ["text", "json", "binary", "ping", "pong"]

    func message(_ json: JSONValue, _ path: String, templated: Bool, readsMessage: Bool, holes: inout Bool) -> WebSocketMessage? {
        guard let members = reader.object(json, path, keys: Set(Self.messagePayloadKeys + ["delay"])) else { return nil }
        let given = Self.messagePayloadKeys.filter { members[$0] != nil }
        guard given.count == 1, let key = given.first, let value = members[key] else {
            reader.problem(path, "give exactly one of text, json, binary (base64), ping, pong")
            return nil
        }
        let delay = (reader.number(members["delay"], "\(path).delay", range: 0...3_600_000) ?? 0) / 1000
        var payload: WebSocketMessage.Payload?
        switch key {
        case "json":
            payload = .json(value)
            if templated, let template = template(ServerSentEvent.Payload.json(value).content, readsMessage: readsMessage, "\(path).json") {
                payload = .template(template, json: true)
                holes = holes || template.hasHoles
            }
        case "binary":
            if let encoded = reader.string(value, "\(path).binary") {
                if let bytes = Data(base64Encoded: encoded) { payload = .binary(bytes) } else { reader.problem("\(path).binary", "not valid base64") }
            }
        case "ping", "pong":
            if let text = reader.string(value, "\(path).\(key)") {
                if text.utf8.count > 125 { reader.problem("\(path).\(key)", "a control frame carries at most 125 bytes, found \(text.utf8.count)") }
                payload = key == "ping" ? .ping(Data(text.utf8)) : .pong(Data(text.utf8))
            }
        default:
            if let text = reader.string(value, "\(path).text") {
                payload = .text(text)
                if templated, let template = template(text, readsMessage: readsMessage, "\(path).text") {
                    payload = .template(template, json: false)
                    holes = holes || template.hasHoles
                }
            }
        }
        return payload.map { WebSocketMessage($0, delay: delay) }
    }

    /// `{"code": 1000, "reason": "…", "delay": ms}`, or `{"withoutCode": true}`.
    func close(_ json: JSONValue, _ path: String) -> WebSocketClose? {
        guard let members = reader.object(json, path, keys: ["code", "withoutCode", "reason", "delay"]) else { return nil }
        let before = reader.problems.count
        let withoutCode = flag(members["withoutCode"], "\(path).withoutCode")
        var code: UInt16? = WebSocketCloseCode.normal
        if withoutCode {
            if members["code"] != nil { reader.problem("\(path).code", "a close without a code has none") }
            if members["reason"] != nil { reader.problem("\(path).reason", "a close without a code has no reason either (RFC 6455 §5.5.1)") }
            code = nil
        } else if let given = reader.integer(members["code"], "\(path).code", range: 1000...4999) {
            if WebSocketCloseCode.isSendable(given) {
                code = UInt16(given)
            } else {
                reader.problem("\(path).code", "\(given) may not be sent in a close frame; use 1000-1003, 1007-1014 or 3000-4999")
            }
        }
        let reason = reader.string(members["reason"], "\(path).reason") ?? ""
        if reason.utf8.count > 123 { reader.problem("\(path).reason", "a close reason is at most 123 bytes of UTF-8, found \(reason.utf8.count)") }
        let delay = (reader.number(members["delay"], "\(path).delay", range: 0...3_600_000) ?? 0) / 1000
        return reader.problems.count == before ? WebSocketClose(code: code, reason: reason, delay: delay) : nil
    }

    static let textMatcherKeys = ["equalTo", "equalToIgnoringCase", "contains", "prefix", "matches"]
    static let bodyPatternKeys = ["json", "jsonEqualTo", "jsonHasKey", "matchesJsonPath", "matchesJsonPointer"]

    /// Which client messages a reply answers: `type`, one text matcher and one JSON pattern.
    func messagePattern(_ json: JSONValue, _ path: String) -> MessagePattern? {
        guard let members = reader.object(json, path, keys: Set(["type"] + Self.textMatcherKeys + Self.bodyPatternKeys)) else { return nil }
        let before = reader.problems.count
        var pattern = MessagePattern()
        pattern.kind = members["type"] == nil ? nil
            : reader.choice(members["type"], "\(path).type", Dictionary(uniqueKeysWithValues: MessagePattern.Kind.allCases.map { ($0.rawValue, $0) }))
        let texts = Self.textMatcherKeys.filter { members[$0] != nil }
        if texts.count > 1 { reader.problem(path, "give at most one of \(Self.textMatcherKeys.joined(separator: ", "))") }
        if let key = texts.first, let value = members[key] { pattern.text = stringMatcher(key, value, "\(path).\(key)") }
        let bodies = Self.bodyPatternKeys.filter { members[$0] != nil }
        if bodies.count > 1 { reader.problem(path, "give at most one of \(Self.bodyPatternKeys.joined(separator: ", "))") }
        if let key = bodies.first, let value = members[key] { pattern.body = bodyPattern(key, value, "\(path).\(key)") }
        return reader.problems.count == before ? pattern : nil
    }

    /// One string matcher (`equalTo`, …, `matches`) with its argument.
    func stringMatcher(_ kind: String, _ argument: JSONValue, _ path: String) -> StringMatcher? {
        guard let text = reader.string(argument, path) else { return nil }
        switch kind {
        case "equalTo": return .equalTo(text)
        case "equalToIgnoringCase": return .equalToIgnoringCase(text)
        case "contains": return .contains(text)
        case "prefix": return .hasPrefix(text)
        default:
            // Compiled when it first meets a value; checked here without ICU where the
            // pattern is plainly valid (`RegexSyntax`).
            if !RegexSyntax.isPlainlyValid(text), (try? NSRegularExpression(pattern: text)) == nil {
                reader.problem(path, "not a valid regular expression")
                return nil
            }
            return .matches(text)
        }
    }

    /// One body pattern, as requests' `body` and messages' `match` write it.
    func bodyPattern(_ key: String, _ value: JSONValue, _ path: String) -> BodyPattern? {
        switch key {
        case "json": return .json(value)
        case "jsonEqualTo": return .jsonEqualTo(value)
        case "jsonHasKey": return reader.string(value, path).map(BodyPattern.jsonHasKey)
        case "contains": return reader.string(value, path).map(BodyPattern.contains)
        default:
            // `"$.a"`, or `{"expression": "$.a", "equalTo": "x"}` (WireMock's shape).
            let pointer = key == "matchesJsonPointer"
            var expression: String?
            var matcher: StringMatcher?
            if case .object = value, let members = reader.object(value, path, keys: Set(["expression"] + Self.textMatcherKeys)) {
                expression = reader.string(members["expression"], "\(path).expression", required: true)
                let kinds = Self.textMatcherKeys.filter { members[$0] != nil }
                if kinds.count > 1 { reader.problem(path, "give at most one of \(Self.textMatcherKeys.joined(separator: ", "))") }
                if let kind = kinds.first, let argument = members[kind] { matcher = stringMatcher(kind, argument, "\(path).\(kind)") }
            } else {
                expression = reader.string(value, path)
            }
            guard let expression else { return nil }
            let location = pointer ? JSONLocation(pointer: expression) : JSONLocation(path: expression)
            guard let location else {
                reader.problem(path, pointer ? "not a JSON Pointer (\"\" or \"/a/0\"), found \"\(expression)\""
                                                              : "not a JSONPath of keys and indices (\"$.a.b[0]\"), found \"\(expression)\"")
                return nil
            }
            return .jsonValue(at: location, matcher)
        }
    }

    // MARK: Stream faults

    static let streamFaultNames = ["stall", "drop", "slowDrip", "burst", "malformed", "close", "closeWithoutCode", "endEarly"]

    /// A `streamFault`: a name (`"burst"`, or a counted fault after 0 events: `"stall"` for
    /// ever, `"drop"` with a reset, …) or `{"NAME": {…}}`.
    func streamFault(_ json: JSONValue, _ path: String, for source: Outcome.Source) -> StreamFault? {
        let stream: EventStream?
        switch source {
        case .eventStream(_, _, let given): stream = given
        case .webSocket: stream = nil
        case .simulator, .stub:
            reader.problem(path, "a stream fault needs an eventStream or a webSocket in the same response")
            return nil
        }
        var fault: StreamFault?
        if case .string(let name) = json {
            switch name {
            case "burst": fault = .burst
            case "stall": fault = .stall(after: 0, duration: nil)
            case "drop": fault = .drop(after: 0, clean: false)
            case "malformed": fault = .malformed(after: 0)
            case "closeWithoutCode": fault = .closeWithoutCode(after: 0)
            case "endEarly": fault = .endEarly(after: 0)
            default:
                reader.problem(path, "\"\(name)\" is not one of: burst, closeWithoutCode, drop, endEarly, malformed, stall "
                               + "(close and slowDrip take an object: {\"close\": {\"code\": 1011}})")
                return nil
            }
        } else {
            guard let members = reader.object(json, path, keys: Set(Self.streamFaultNames)) else { return nil }
            guard members.count == 1, let (name, value) = members.first else {
                reader.problem(path, "give exactly one of \(Self.streamFaultNames.joined(separator: ", "))")
                return nil
            }
            fault = streamFault(name, value, "\(path).\(name)")
        }
        guard let fault else { return nil }
        if stream != nil, fault.isWebSocketOnly {
            reader.problem(path, "\(fault.name) is a WebSocket's close frame; an event stream has none (drop or endEarly end one)")
            return nil
        }
        if let stream, let after = fault.after, let count = stream.count, after > count {
            reader.problem(path, "the stream sends \(count) events; a fault after \(after) never strikes")
            return nil
        }
        return fault
    }

    private func streamFault(_ name: String, _ json: JSONValue, _ path: String) -> StreamFault? {
        if name == "burst" {
            if json != .bool(true), json != .object([:]) { reader.problem(path, "burst takes no settings: write \"streamFault\": \"burst\"") }
            return .burst
        }
        let keys: Set<String>
        switch name {
        case "stall": keys = ["after", "for"]
        case "drop": keys = ["after", "clean"]
        case "slowDrip": keys = ["interval"]
        case "close": keys = ["after", "code", "reason"]
        default: keys = ["after"]
        }
        guard let members = reader.object(json, path, keys: keys) else { return nil }
        let before = reader.problems.count
        let after = reader.integer(members["after"], "\(path).after", range: 0...1_000_000) ?? 0
        var fault: StreamFault?
        switch name {
        case "stall":
            let duration = reader.number(members["for"], "\(path).for", range: 0...3_600_000).map { $0 / 1000 }
            fault = .stall(after: after, duration: duration)
        case "drop":
            fault = .drop(after: after, clean: flag(members["clean"], "\(path).clean"))
        case "slowDrip":
            fault = reader.number(members["interval"], "\(path).interval", required: true, range: 1...3_600_000).map { .slowDrip(interval: $0 / 1000) }
        case "close":
            if let code = reader.integer(members["code"], "\(path).code", required: true, range: 1000...4999) {
                if WebSocketCloseCode.isSendable(code) {
                    let reason = reader.string(members["reason"], "\(path).reason") ?? ""
                    if reason.utf8.count > 123 { reader.problem("\(path).reason", "a close reason is at most 123 bytes of UTF-8, found \(reason.utf8.count)") }
                    fault = .close(after: after, code: UInt16(code), reason: reason)
                } else {
                    reader.problem("\(path).code", "\(code) may not be sent in a close frame; use 1000-1003, 1007-1014 or 3000-4999 (closeWithoutCode sends none)")
                }
            }
        case "malformed": fault = .malformed(after: after)
        case "closeWithoutCode": fault = .closeWithoutCode(after: after)
        default: fault = .endEarly(after: after)
        }
        return reader.problems.count == before ? fault : nil
    }
}

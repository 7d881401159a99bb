import Foundation

/// Scenario files' `webSocket`: a scripted conversation (greeting, replies, pushes, close).
/// Delays are milliseconds in files, seconds in values.
extension ScenarioParser {
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
}

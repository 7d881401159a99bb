import Foundation

/// Scenario files' `streamFault`: a name, or `{"NAME": {…}}`, checked against the stream it breaks.
extension ScenarioParser {
    static let streamFaultNames = ["stall", "drop", "slowDrip", "burst", "malformed", "close", "closeWithoutCode", "endEarly"]

    /// A `streamFault`: a name (`"burst"`, or a counted fault after 0 events: `"stall"` for
    /// ever, `"drop"` with a reset, …) or `{"NAME": {…}}`.
    func streamFault(_ json: JSONValue, _ path: String, for source: Outcome.Source) -> StreamFault? {
        let stream: EventStream?
        switch source {
        case .eventStream(_, _, let given): stream = given
        // The API's own answer (`"simulator": true`) streams where its document says so (an
        // OpenAPI document's `text/event-stream`); the fault strikes only then.
        case .webSocket, .simulator: stream = nil
        case .stub:
            reader.problem(path, "a stream fault needs an eventStream or a webSocket in the same response, or \"simulator\": true for the API's own stream")
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

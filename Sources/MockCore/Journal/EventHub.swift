import Foundation

/// Live events for the admin stream: journal entries as they are recorded and state
/// changes (scenario switched, state reset, fixtures reloaded). Subscribers get each
/// event as a server-sent-events frame.
public final class EventHub: Sendable {
    /// Receives each event as one server-sent-events frame; called on the publisher's thread, so it must not block.
    public typealias Subscriber = @Sendable (Data) -> Void
    private let subscribers = Locked([UUID: Subscriber]())

    /// Makes a hub with no subscriber.
    public init() {}

    /// Starts delivering events; keep the token to stop.
    public func subscribe(_ subscriber: @escaping Subscriber) -> UUID {
        let token = UUID()
        subscribers.withLock { $0[token] = subscriber }
        return token
    }

    /// Stops delivering events to the subscriber `token` names; an unknown token is ignored.
    public func unsubscribe(_ token: UUID) {
        subscribers.withLock { _ = $0.removeValue(forKey: token) }
    }

    /// How many subscribers are listening now.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Sends `data` as event `name` to every subscriber (nothing is built when none listen).
    public func publish(_ name: String, id: UInt64? = nil, _ data: @autoclosure () -> JSONValue) {
        // Nothing copied out when none listen, on every request.
        let targets = subscribers.withLock { $0.isEmpty ? [] : Array($0.values) }
        guard !targets.isEmpty else { return }
        var frame = "event: \(name)\n"
        if let id { frame += "id: \(id)\n" }
        frame += "data: " + String(decoding: JSONCoding.encode(data()), as: UTF8.self) + "\n\n"
        let bytes = Data(frame.utf8)
        for target in targets { target(bytes) }
    }
}

extension ServeEvent {
    /// The entry as the admin API shows it in lists and events.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .number(Double(id)),
            "receivedAt": .string(ISO8601.format(receivedAt)),
            "method": .string(request.method),
            "path": .string(request.path),
            "host": .string(request.host),
            "uri": .string(request.asRequest.uri),
            "status": .number(Double(status)),
            "matched": .bool(wasMatched),
            "delayMs": .number((delay * 1000).rounded()),
            "requestBodySize": .number(Double(request.body.size)),
            "responseBodySize": .number(Double(responseBodySize)),
        ]
        if let answeredBy { object["answeredBy"] = .string(answeredBy) }
        if let scenarioStep { object["scenarioStep"] = .string(scenarioStep) }
        if let fault { object["fault"] = .string(fault.rawValue) }
        if let session { object["session"] = .string(session) }
        if let network { object["network"] = .string(network) }
        if let duration { object["durationMs"] = .number((duration * 10_000).rounded() / 10) }
        if let transcript { object["stream"] = transcript.summaryJSON }
        let violations = violations   // worked out from the request each time it is read
        if !violations.isEmpty { object["violations"] = .array(violations.map(\.json)) }
        return .object(object)
    }

    /// The entry with headers and body, for the single-entry endpoint.
    public var detailJSON: JSONValue {
        guard case .object(var object) = json else { return json }
        object["requestHeaders"] = .array(request.headers.map { [.string($0.name), .string($0.value)] })
        object["responseHeaders"] = .array(responseHeaders.map { [.string($0.name), .string($0.value)] })
        object["query"] = .array(request.query.map { [.string($0.name), .string($0.value)] })
        if let transcript { object["stream"] = transcript.json }
        switch request.body {
        case .empty: object["body"] = .null
        case .bytes(let data):
            if let text = String(data: data, encoding: .utf8) {
                object["body"] = ["text": .string(text)]
            } else {
                object["body"] = ["base64": .string(data.base64EncodedString())]
            }
        case .summary(let size, let digest):
            object["body"] = ["size": .number(Double(size)), "fnv1a64": .string(digest), "kept": false]
        }
        return .object(object)
    }
}

/// ISO 8601 UTC with milliseconds (`2026-11-22T19:10:51.576Z`), computed without a
/// shared formatter so any thread may call it.
public enum ISO8601 {
    /// `date` in UTC with milliseconds, such as `2026-11-22T19:10:51.576Z`.
    public static func format(_ date: Date) -> String {
        let t = CivilTime(date)
        return "\(padded(t.year, 4))-\(padded(t.month, 2))-\(padded(t.day, 2))T\(padded(t.hour, 2)):\(padded(t.minute, 2)):\(padded(t.second, 2)).\(padded(t.millisecond, 3))Z"
    }

    /// Parses what `format` writes (and the same without milliseconds).
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

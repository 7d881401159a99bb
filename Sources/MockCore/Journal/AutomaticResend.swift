import Foundation

/// Requests a client's HTTP stack sent again by itself, which no provider controls.
///
/// When a keep-alive connection that carried an earlier request is reset, or closed
/// before a byte of the answer came, the client cannot tell whether the server ever
/// processed the request: URLSession on Apple platforms resends an idempotent request
/// once on a fresh connection, and libcurl (URLSession on Linux) does the same. The
/// journal keeps both requests; a count of what the *provider* sent counts them once.
///
/// An entry is a resend of an earlier one when all of these hold:
/// - the earlier one met a `connectionReset` or `emptyResponse` fault (no byte of answer)
///   on a reused connection;
/// - this one is the first request of another connection;
/// - both have the same session, an idempotent method (RFC 9110 §9.2.2), and the same
///   path, query and body;
/// - this one came within `window` seconds of the earlier one's end;
/// - the earlier one was not already resent (a stack resends once).
public enum AutomaticResend {
    /// The methods a client stack resends by itself (RFC 9110's idempotent methods).
    public static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]
    /// How soon after the failed attempt ended its resend arrives (it is sent at once).
    public static let window: TimeInterval = 2

    /// For each resend in `events` (journal order), the id of the attempt it repeats.
    public static func resends(in events: [ServeEvent]) -> [UInt64: UInt64] {
        var awaiting: [Key: ServeEvent] = [:]
        var found: [UInt64: UInt64] = [:]
        for event in events {
            let key = Key(event)
            if let attempt = awaiting[key] {
                awaiting[key] = nil
                if repeats(event, attempt) {
                    found[event.id] = attempt.id
                    continue
                }
            }
            if failedOnReusedConnection(event) { awaiting[key] = event }
        }
        return found
    }

    /// `events` without the resends: what the provider itself sent.
    public static func folding(_ events: [ServeEvent]) -> [ServeEvent] {
        let resent = resends(in: events)
        return resent.isEmpty ? events : events.filter { resent[$0.id] == nil }
    }

    static func failedOnReusedConnection(_ event: ServeEvent) -> Bool {
        guard let connection = event.connection, connection.isReused,
              event.fault == .connectionReset || event.fault == .emptyResponse else { return false }
        return idempotentMethods.contains(event.request.method)
    }

    static func repeats(_ event: ServeEvent, _ attempt: ServeEvent) -> Bool {
        guard let connection = event.connection, connection.ordinal == 1, connection.id != attempt.connection?.id,
              event.request.body == attempt.request.body else { return false }
        let ended = attempt.receivedAt.addingTimeInterval(attempt.duration ?? attempt.delay)
        return event.receivedAt.timeIntervalSince(ended) <= window
    }

    /// What a resend has in common with its attempt, besides the body.
    struct Key: Hashable {
        let session: String?
        let method: String
        let uri: String

        init(_ event: ServeEvent) {
            session = event.session
            method = event.request.method
            uri = event.request.asRequest.uri
        }
    }
}

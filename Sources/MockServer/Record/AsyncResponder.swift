import Scenarios

/// A responder that answers later: the transport keeps the connection's event loop free
/// while it waits (a proxy to a real server, say).
public protocol AsyncResponder: Sendable {
    /// `target` is the request line's URI exactly as the client sent it.
    func respond(to request: MockRequest, target: String) async -> ResponsePlan
}

/// The one core protocol: answer a request with a plan. Journal, scenarios and the API
/// simulators are responders; extra behaviour wraps a responder rather than growing it.
public protocol Responder: Sendable {
    /// The plan for `request`. Called on the transport's thread for every request: it must not block.
    func respond(to request: MockRequest) -> ResponsePlan
}

/// A responder from a closure.
public struct ClosureResponder: Responder {
    let body: @Sendable (MockRequest) -> ResponsePlan
    /// Answers every request with `body`'s plan; `body` is called on whatever thread the transport uses.
    public init(_ body: @escaping @Sendable (MockRequest) -> ResponsePlan) { self.body = body }
    /// Calls the closure with `request`.
    public func respond(to request: MockRequest) -> ResponsePlan { body(request) }
}

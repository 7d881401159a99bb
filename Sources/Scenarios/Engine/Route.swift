/// A named endpoint of an API simulator: a pattern and the handler that answers it.
public struct Route: Sendable {
    public let name: String
    public let pattern: RequestPattern
    public let handler: @Sendable (MockRequest, MatchResult) -> ResponsePlan

    public init(_ name: String, _ pattern: RequestPattern, handler: @escaping @Sendable (MockRequest, MatchResult) -> ResponsePlan) {
        self.name = name
        self.pattern = pattern
        self.handler = handler
    }
}

/// Answers with the first matching route; an unmatched request gets a 404 JSON body
/// naming the nearest routes.
public struct Router: Responder {
    public let routes: [Route]
    public let nearestCount: Int

    public init(routes: [Route], nearestCount: Int = 3) {
        self.routes = routes
        self.nearestCount = nearestCount
    }

    public func respond(to request: MockRequest) -> ResponsePlan {
        for route in routes {
            if let match = route.pattern.match(request) {
                return route.handler(request, match).answered(by: route.name)
            }
        }
        return unmatched(request)
    }

    /// The routes closest to `request`, best first.
    public func nearest(to request: MockRequest) -> [Route] {
        routes
            .map { (route: $0, distance: $0.pattern.distance(to: request)) }
            .sorted { $0.distance < $1.distance }
            .prefix(nearestCount)
            .map(\.route)
    }

    func unmatched(_ request: MockRequest) -> ResponsePlan {
        let nearest = nearest(to: request).map { route -> JSONValue in
            ["route": .string(route.name), "request": .string(route.pattern.description)]
        }
        return .error(404, "No route matches \(request.method) \(request.path)", details: ["nearest": .array(nearest)])
    }
}

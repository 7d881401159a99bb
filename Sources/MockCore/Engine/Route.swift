/// A named endpoint of an API simulator: a pattern and the handler that answers it.
public struct Route: Sendable {
    /// The route's name as the journal and `answeredBy` show it, such as `restaurant.menu`.
    public let name: String
    /// What a request must match: method, path and any other conditions.
    public let pattern: RequestPattern
    /// Builds the answer from the request and what the pattern captured (path parameters).
    /// Called on the transport's thread; it must not block.
    public let handler: @Sendable (MockRequest, MatchResult) -> ResponsePlan

    /// Makes a route called `name` answering requests that match `pattern` with `handler`.
    public init(_ name: String, _ pattern: RequestPattern, handler: @escaping @Sendable (MockRequest, MatchResult) -> ResponsePlan) {
        self.name = name
        self.pattern = pattern
        self.handler = handler
    }
}

/// Answers with the first matching route; an unmatched request gets a 404 JSON body
/// naming the nearest routes.
///
/// Routes are tried in order, but only those that can match the request's first path
/// segment, so a request for a route declared last (an Open Market image) does not try
/// every route of both APIs first.
public struct Router: Responder {
    /// The routes, in the order they are tried.
    public let routes: [Route]
    /// How many nearest routes an unmatched request's 404 names.
    public let nearestCount: Int
    /// Indices of the routes that can match a path starting with `segment` (its first
    /// segment; empty for `/`), in declaration order, routes with any first segment
    /// included. A list, compared byte for byte: an API has a handful of first segments,
    /// and hashing the request's would cost more than comparing it with each.
    private let candidates: [(segment: [UInt8], indices: [Int])]
    /// Indices of the routes whose first segment can be anything (or that have no path).
    private let anyFirstSegment: [Int]
    /// The routes again, each behind one reference: reading a `Route` (a struct of a
    /// pattern, a name and a closure) out of `routes` copies its pattern for every route
    /// tried, where a reference costs one retain.
    private let tried: [Tried]

    private final class Tried: Sendable {
        /// The pattern's match, in a closure that holds the pattern: a pattern read from a
        /// stored property is copied before each call.
        let match: @Sendable (MockRequest) -> MatchResult?
        let handler: @Sendable (MockRequest, MatchResult) -> ResponsePlan
        let name: String
        init(_ route: Route) {
            let pattern = route.pattern
            match = { pattern.match($0) }
            (handler, name) = (route.handler, route.name)
        }
    }

    /// Makes a router over `routes`, tried in order; an unmatched request's 404 names the
    /// `nearestCount` routes nearest to it.
    public init(routes: [Route], nearestCount: Int = 3) {
        self.routes = routes
        self.nearestCount = nearestCount
        let keys = routes.map { $0.pattern.path?.requiredFirstSegment }
        let any = keys.indices.filter { keys[$0] == nil }
        var candidates: [(segment: [UInt8], indices: [Int])] = []
        for key in keys.compactMap({ $0 }) where !candidates.contains(where: { $0.segment.elementsEqual(key.utf8) }) {
            candidates.append((Array(key.utf8), keys.indices.filter { keys[$0] == key || keys[$0] == nil }))
        }
        self.candidates = candidates
        self.anyFirstSegment = any
        self.tried = routes.map(Tried.init)
    }

    /// The first matching route's answer, with `answeredBy` set to its name; a 404 JSON error
    /// naming the nearest routes when none matches.
    public func respond(to request: MockRequest) -> ResponsePlan {
        var name: String?
        var plan = respond(to: request, answeredBy: &name)
        if let name { plan.answeredBy = name }
        return plan
    }

    /// The matching route's answer, and its name in `answeredBy` (nil when none matched),
    /// for a caller that sets it on a plan it changes anyway: a plan changed here and
    /// returned is copied.
    func respond(to request: MockRequest, answeredBy name: inout String?) -> ResponsePlan {
        for index in candidateIndices(request.path) {
            let tried = tried[index]
            if let match = tried.match(request) {
                name = tried.name
                return tried.handler(request, match)
            }
        }
        return unmatched(request)
    }

    /// The routes that can match `path`, by its first segment.
    private func candidateIndices(_ path: String) -> [Int] {
        if let found = path.utf8.withContiguousStorageIfAvailable({ candidateIndices($0) }) { return found }
        return Array(path.utf8).withUnsafeBufferPointer { candidateIndices($0) }
    }

    private func candidateIndices(_ path: UnsafeBufferPointer<UInt8>) -> [Int] {
        let slash = UInt8(ascii: "/")
        var start = 0
        while start < path.count && path[start] == slash { start += 1 }
        var end = start
        while end < path.count && path[end] != slash { end += 1 }
        let length = end - start
        for candidate in candidates where candidate.segment.count == length {
            let same = candidate.segment.withUnsafeBufferPointer { segment in
                var offset = 0
                while offset < length && segment[offset] == path[start + offset] { offset += 1 }
                return offset == length
            }
            if same { return candidate.indices }
        }
        return anyFirstSegment
    }

    /// The methods the routes of the resource at `path` answer (with HEAD wherever GET is),
    /// sorted; empty when no route has that path. Where templates of different literal
    /// segments match (`/api/products/{id}/secret` and `/api/products/{id}/{secret}`), the
    /// most literal ones are the resource, as OpenAPI reads paths. A 405 names them in `Allow`.
    public func allowedMethods(at path: String) -> [String] {
        let matching = routes.compactMap { route -> (pattern: PathPattern, method: String?)? in
            guard let pattern = route.pattern.path, pattern.match(path) != nil else { return nil }
            return (pattern, route.pattern.method)
        }
        guard let specificity = matching.map(\.pattern.literalCount).max() else { return [] }
        var methods = Set<String>()
        for (pattern, method) in matching where pattern.literalCount == specificity {
            guard let method else { return [] }   // any method is answered
            methods.insert(method)
            if method == "GET" { methods.insert("HEAD") }
        }
        return methods.sorted()
    }

    /// The routes closest to `request`, best first.
    public func nearest(to request: MockRequest) -> [Route] {
        routes
            .map { (route: $0, distance: $0.pattern.distance(to: request)) }
            .sorted { $0.distance < $1.distance }
            .prefix(nearestCount)
            .map(\.route)
    }

    /// A 405 with `Allow` when the path is answered for other methods (RFC 9110, and what
    /// schemathesis checks against the OpenAPI documents), else a 404; both name the
    /// nearest routes.
    func unmatched(_ request: MockRequest) -> ResponsePlan {
        let nearest = nearest(to: request).map { route -> JSONValue in
            ["route": .string(route.name), "request": .string(route.pattern.description)]
        }
        let allowed = allowedMethods(at: request.path)
        guard !allowed.isEmpty else {
            return .error(404, "No route matches \(request.method) \(request.path)", details: ["nearest": .array(nearest)])
        }
        var plan = ResponsePlan.error(405, "\(request.path) does not answer \(request.method); it answers \(allowed.joined(separator: ", "))",
                                      details: ["allow": .array(allowed.map(JSONValue.string)), "nearest": .array(nearest)])
        plan.headers.add("Allow", allowed.joined(separator: ", "))
        return plan
    }
}

import Foundation

/// The APIs of one engine, each built from its fixtures, and their routes.
struct APIs: Sendable {
    /// One API as this engine serves it.
    struct Served: Sendable {
        let api: any MockAPI
        let instance: any ServedAPI
        /// The variant played.
        let variant: String
    }

    /// The APIs served, in the configuration's order.
    let served: [Served]
    /// Every API's routes: what a request to any host but the APIs' own is answered by.
    let router: Router
    /// Each API host's own routes.
    let routersByHost: [HostRouter]
    /// The OpenAPI documents of these APIs as played, made on first use (most engines
    /// never check a request: a per-test server starts without building them).
    let conformance: LazyConformance

    /// `starts`: what engines sharing `set` start from (`StartingStates`), nil to keep nothing.
    init(_ set: FixtureSet, _ configuration: EngineConfiguration, starts: StartingStates?) {
        served = configuration.apis.compactMap { api in
            guard let fixtures = set[api.name] else { return nil }
            let variant = configuration.variant(of: api)
            var context = APIContext(variant: variant, seed: configuration.seed, timeSource: configuration.timeSource,
                                     imageCacheControl: configuration.imageCacheControl, strict: configuration.strict, starts: starts)
            context.timeScale = configuration.timeScale
            return api.serve(erased: fixtures, context).map { Served(api: api, instance: $0, variant: variant) }
        }
        let routes = served.map(\.instance.routes)
        router = Router(routes: routes.flatMap { $0 })
        var byHost: [HostRouter] = []
        for (index, api) in served.enumerated() {
            for host in api.api.hosts + configuration.hostMap.filter({ $0.value == api.api.name }).map(\.key) {
                let key = Array(host.lowercased().utf8)
                guard !byHost.contains(where: { $0.host == key }) else { continue }
                byHost.append(HostRouter(host: key, router: Router(routes: routes[index])))
            }
        }
        routersByHost = byHost
        // Only what the documents need: journal entries hold this, and a closure holding the
        // simulators would keep replaced ones (their stores, uploaded images) alive after a
        // reset or reload for as long as those entries are kept.
        let sources = served.compactMap { api in api.instance.openAPI.map { (source: $0, variant: api.variant) } }
        let strict = configuration.strict
        conformance = LazyConformance {
            RequestConformance(combining: sources.map { $0.source.conformance ?? RequestConformance(documents: [$0.source.document(variant: $0.variant, strict: strict)]) })
        }
    }

    /// One host's routes: those of the API it belongs to.
    final class HostRouter: Sendable {
        /// Lower case, without port.
        let host: [UInt8]
        let router: Router
        init(host: [UInt8], router: Router) { (self.host, self.router) = (host, router) }
    }

    /// The answer of the route matching `request`, with its name in `answeredBy`
    /// (`Router.respond(to:answeredBy:)`): its host's API's routes alone when the host is an
    /// API's, else every API's.
    func respond(to request: MockRequest, answeredBy name: inout String?) -> ResponsePlan {
        if !routersByHost.isEmpty, let own = hostRouter(for: request) { return own.router.respond(to: request, answeredBy: &name) }
        return router.respond(to: request, answeredBy: &name)
    }

    /// The routes of `request`'s host when it is an API's.
    func hostRouter(for request: MockRequest) -> HostRouter? {
        request.baseURL.utf8.withContiguousStorageIfAvailable { hostRouter(authorityOf: $0) }
            ?? Array(request.baseURL.utf8).withUnsafeBufferPointer { hostRouter(authorityOf: $0) }
    }

    /// The router of the host in `baseURL` (`scheme://host[:port]`), compared without case.
    private func hostRouter(authorityOf baseURL: UnsafeBufferPointer<UInt8>) -> HostRouter? {
        var start = 0
        while start + 2 < baseURL.count, !(baseURL[start] == UInt8(ascii: ":") && baseURL[start + 1] == UInt8(ascii: "/")
                                             && baseURL[start + 2] == UInt8(ascii: "/")) { start += 1 }
        start += 3
        guard start < baseURL.count else { return nil }
        var end = start
        while end < baseURL.count, baseURL[end] != UInt8(ascii: ":"), baseURL[end] != UInt8(ascii: "/") { end += 1 }
        let length = end - start
        for candidate in routersByHost where candidate.host.count == length {
            let same = candidate.host.withUnsafeBufferPointer { host in
                var offset = 0
                while offset < length, host[offset] == Self.lowercased(baseURL[start + offset]) { offset += 1 }
                return offset == length
            }
            if same { return candidate }
        }
        return nil
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// The served API named `name`.
    func served(named name: String) -> Served? { served.first { $0.api.name == name } }
}

/// A `RequestConformance` made once, when first asked.
final class LazyConformance: Sendable {
    private let make: @Sendable () -> RequestConformance
    private let made = Locked<RequestConformance?>(nil)

    init(_ make: @escaping @Sendable () -> RequestConformance) { self.make = make }

    func violations(of request: MockRequest) -> [RequestViolation]? {
        let conformance = made.withLock { made in
            if let made { return made }
            let new = make()
            made = new
            return new
        }
        return conformance.violations(of: request)
    }
}

/// The APIs now serving, swapped whole on reset and reload.
final class LiveAPIs: Responder {
    /// Behind one reference: a request takes the box out of the lock (one retain) and
    /// routes in the box's own methods, which read its router in place. Taking the router
    /// or the APIs out copied them.
    private final class Box: Sendable {
        let apis: APIs
        init(_ apis: APIs) { self.apis = apis }
        func respond(to request: MockRequest) -> ResponsePlan {
            var name: String?
            var plan = apis.respond(to: request, answeredBy: &name)
            if let name { plan.answeredBy = name }
            return plan
        }
        func respond(to request: MockRequest, answeredBy name: inout String?) -> ResponsePlan {
            apis.respond(to: request, answeredBy: &name)
        }
        var conformance: LazyConformance { apis.conformance }
    }

    private let apis: Locked<Box>
    init(_ apis: APIs) { self.apis = Locked(Box(apis)) }
    var current: APIs { apis.current.apis }
    func replace(_ new: APIs) {
        let box = Box(new)
        apis.withLock { $0 = box }
    }
    func respond(to request: MockRequest) -> ResponsePlan { apis.current.respond(to: request) }
    /// The same, with the route's name apart (`Router.respond(to:answeredBy:)`).
    func respond(to request: MockRequest, answeredBy name: inout String?) -> ResponsePlan {
        apis.current.respond(to: request, answeredBy: &name)
    }
    var conformance: LazyConformance { apis.current.conformance }
}

import Foundation

/// The simulators built from one fixture set, and their routes.
struct APIs: Sendable {
    let restaurant: RestaurantSimulator?
    let openMarket: OpenMarketSimulator?
    let router: Router
    /// The OpenAPI documents of these APIs as played, made on first use (most engines
    /// never check a request: a per-test server starts without building them).
    let conformance: LazyConformance

    /// `starts`: what engines sharing `set` start from (`StartingStates`), nil to make it here.
    init(_ set: FixtureSet, _ configuration: EngineConfiguration, starts: StartingStates?) {
        restaurant = set.restaurant.map {
            RestaurantSimulator(fixtures: $0, variant: configuration.restaurantVariant, imageCacheControl: configuration.imageCacheControl,
                                strict: configuration.strict, starts: starts)
        }
        openMarket = set.openMarket.map {
            OpenMarketSimulator(fixtures: $0, variant: configuration.openMarketVariant, seed: configuration.seed,
                                timeSource: configuration.timeSource, imageCacheControl: configuration.imageCacheControl,
                                strict: configuration.strict, starts: starts)
        }
        router = Router(routes: (restaurant?.routes ?? []) + (openMarket?.routes ?? []))
        // Only what the documents need: journal entries hold this, and a closure holding the
        // simulators would keep replaced ones (their stores, uploaded images) alive after a
        // reset or reload for as long as those entries are kept.
        let menuIDs = restaurant?.fixtures.items.map(\.id), servesOpenMarket = openMarket != nil, strict = configuration.strict
        let restaurantVariant = configuration.restaurantVariant, openMarketVariant = configuration.openMarketVariant
        conformance = LazyConformance {
            var documents: [JSONValue] = []
            if let menuIDs {
                documents.append(OpenAPIDocuments.restaurant(restaurantVariant, strict: strict, menuIDs: menuIDs))
            }
            if servesOpenMarket { documents.append(OpenAPIDocuments.openMarket(openMarketVariant, strict: strict)) }
            return RequestConformance(documents: documents)
        }
    }
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
    /// or the APIs out copied them, five references or more (#24).
    private final class Box: Sendable {
        let apis: APIs
        init(_ apis: APIs) { self.apis = apis }
        func respond(to request: MockRequest) -> ResponsePlan { apis.router.respond(to: request) }
        func respond(to request: MockRequest, answeredBy name: inout String?) -> ResponsePlan {
            apis.router.respond(to: request, answeredBy: &name)
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

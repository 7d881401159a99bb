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
    private let apis: Locked<APIs>
    init(_ apis: APIs) { self.apis = Locked(apis) }
    var current: APIs { apis.current }
    func replace(_ new: APIs) { apis.withLock { $0 = new } }
    /// Takes only the router out of the lock: copying all of `APIs` per request showed in profiles (#7).
    func respond(to request: MockRequest) -> ResponsePlan { apis.withLock { $0.router }.respond(to: request) }
    /// The same, with the route's name apart (`Router.respond(to:answeredBy:)`).
    func respond(to request: MockRequest, answeredBy name: inout String?) -> ResponsePlan {
        apis.withLock { $0.router }.respond(to: request, answeredBy: &name)
    }
    var conformance: LazyConformance { apis.withLock { $0.conformance } }
}

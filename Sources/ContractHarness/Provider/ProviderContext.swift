import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the harness gives an adapter to build the provider under test: where the server
/// is, how long a call may take, and (for the in-process transport) the session
/// configuration whose protocol classes reach the mock without sockets.
public struct ProviderContext: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:51234`.
    public let baseURL: URL
    /// The request timeout the provider must use (`URLRequest.timeoutInterval` or
    /// `URLSessionConfiguration.timeoutIntervalForRequest`).
    public let timeout: TimeInterval
    /// The Open Market vendor the provider must act as (its `identifier` header); the
    /// checks pass the matching password where the API asks for it.
    public let vendor: MarketVendor
    /// Over `.secureSockets`, the delegate that trusts the mock's local CA; nil otherwise.
    /// Pass it when building the session: `URLSession(configuration: context.sessionConfiguration,
    /// delegate: context.sessionDelegate, delegateQueue: nil)`.
    public let sessionDelegate: LocalCATrust?
    private let makeConfiguration: @Sendable () -> URLSessionConfiguration

    /// Makes a context; `sessionConfiguration` is called for each configuration the provider asks for.
    public init(baseURL: URL, timeout: TimeInterval, vendor: MarketVendor = .fixtureVendor, sessionDelegate: LocalCATrust? = nil,
                sessionConfiguration: @escaping @Sendable () -> URLSessionConfiguration) {
        self.sessionDelegate = sessionDelegate
        self.baseURL = baseURL
        self.timeout = timeout
        self.vendor = vendor
        self.makeConfiguration = sessionConfiguration
    }

    /// A fresh configuration to build the provider's `URLSession` from: ephemeral, no URL
    /// cache, the timeout set; for the in-process transport it also routes requests to
    /// the mock engine. Set session-wide headers (`httpAdditionalHeaders`) on it, then make
    /// the session: the in-process transport reads them from this very configuration.
    public var sessionConfiguration: URLSessionConfiguration { makeConfiguration() }
}

/// An Open Market vendor's credentials.
public struct MarketVendor: Sendable, Equatable {
    /// The `identifier` header value that authenticates the vendor.
    public var identifier: String
    /// The vendor's password: the `secret` of create, update and secret lookup.
    public var password: String
    /// The vendor's id, which its products carry in `vendor_id`.
    public var id: Int
    /// Makes credentials of a vendor.
    public init(identifier: String, password: String, id: Int) {
        self.identifier = identifier
        self.password = password
        self.id = id
    }

    /// Vendor 1 of the built-in fixtures (yagom-mart).
    public static let fixtureVendor = MarketVendor(identifier: "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1", password: "mart1234", id: 1)
}

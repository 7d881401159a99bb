// What the articles' text supplies around their snippets: the reader's own types (a pets
// client, an adapter of their `MenuController`), the values a snippet takes from the
// paragraph before it (`url`, `engine`, `configuration`), and on Linux a stand-in for
// Apple's `XCUIApplication`. Snippets are compiled against these, never run.
import ContractTests
import Foundation
import MockFixtures
import MockServerClient
import OrderAppNetworking
import Scenarios
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The OpenAPI document a snippet's `url` names ("Your own API": a pets document).
public let url = URL(fileURLWithPath: "petstore.yaml")

/// The engine a snippet's `engine` names: the built-in fixtures' (created when first read,
/// which a compiled-only snippet never does).
public let engine: MockEngine = {
    do {
        return try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
    } catch {
        fatalError("the built-in fixtures do not load: \(error)")
    }
}()

/// The suite configuration a snippet's `configuration` names (the one a previous snippet made).
public let configuration = SuiteConfiguration(fixturesDirectory: MockFixtures.directory, restaurantVariant: .original, timeout: 3)

/// A pet, as the reader's app and their own API ("Adding an API") model it.
public struct Pet: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    /// The pets a fresh server starts with.
    public static let samples = [Pet(id: 1, name: "Rex"), Pet(id: 2, name: "Kit")]
}

/// The OpenAPI document of the reader's pets API, for a variant.
public func petsDocument(_ variant: String) -> JSONValue {
    ["openapi": "3.1.0", "info": ["title": "Pets", "version": .string(variant)], "paths": [:]]
}

/// The reader's client of the pets API ("Your own API"): URLSession and Codable.
public struct PetsClient: Sendable {
    public let baseURL: URL
    public let session: URLSession

    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    /// `GET /pets`.
    public func pets(limit: Int? = nil) async throws -> [Pet] {
        var components = URLComponents(url: baseURL.appendingPathComponent("pets"), resolvingAgainstBaseURL: false)!
        if let limit { components.queryItems = [URLQueryItem(name: "limit", value: String(limit))] }
        return try await decoded(URLRequest(url: components.url!))
    }

    /// `GET /pets/{id}`.
    public func pet(id: Int) async throws -> Pet {
        try await decoded(URLRequest(url: baseURL.appendingPathComponent("pets/\(id)")))
    }

    /// `POST /pets`.
    public func create(name: String) async throws -> Pet {
        var request = URLRequest(url: baseURL.appendingPathComponent("pets"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["name": name])
        return try await decoded(request)
    }

    private func decoded<T: Decodable>(_ request: URLRequest) async throws -> T {
        let (data, response) = try await session.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw URLError(.badServerResponse)
        }
        return try JSONDecoder().decode(T.self, from: data)
    }
}

/// The reader's adapter from their `MenuController` to the Restaurant contract
/// ("Writing a provider adapter"); `Examples/OrderApp` has the same one.
public struct MenuControllerAdapter: RestaurantProvider {
    public let controller: MenuController

    public init(controller: MenuController) { self.controller = controller }

    public init(context: ProviderContext) {
        controller = MenuController(baseURL: context.baseURL,
                                    session: URLSession(configuration: context.sessionConfiguration,
                                                        delegate: context.sessionDelegate, delegateQueue: nil))
    }

    public var imageCacheLimit: Int? { controller.imageCacheLimit }

    public func categories() async throws -> [String] { try await controller.fetchCategories() }

    public func menuItems(category: String) async throws -> [RestaurantItem] {
        try await controller.fetchMenuItems(forCategory: category).map {
            RestaurantItem(id: $0.id, name: $0.name, description: $0.detailText, price: $0.price, category: $0.category, imageURL: $0.imageURL)
        }
    }

    public func submitOrder(menuIDs: [Int]) async throws -> Int { try await controller.submitOrder(forMenuIDs: menuIDs) }

    public func imageData(from url: URL) async throws -> Data { try await controller.fetchImage(from: url) }
}

/// The adapter a snippet calls `MyAdapter`.
public typealias MyAdapter = MenuControllerAdapter

#if !(os(iOS) || os(tvOS) || os(macOS))
/// Apple's `XCUIApplication` exists only in Xcode's XCTest; on Linux the UI-test snippet
/// compiles against this, isolated to the main actor as Apple's is.
@MainActor
open class XCUIApplication {
    /// The environment the app is launched with.
    public var launchEnvironment: [String: String] = [:]

    public init() {}

    /// Launches the app (here: nothing to launch).
    open func launch() {}

    /// `ContractTestsXCTest`'s `useMockServer(_:session:)`, which exists on Apple platforms only.
    public func useMockServer(_ server: TestMockServer, session: String) {
        launchEnvironment.merge(MockServerEnvironment.launchEnvironment(baseURL: server.baseURL, session: session)) { _, new in new }
    }
}
#endif

/// The reader's server-sent events client ("Streaming clients"): a request's events as an
/// async sequence, which ends with the stream and throws when it breaks.
public struct MyEventSource: Sendable {
    /// An event as the reader's client models it.
    public struct Event: Sendable {
        public var type: String
        public var data: String
        public var lastEventID: String
    }

    public let session: URLSession
    public let request: URLRequest

    public init(session: URLSession, request: URLRequest) {
        self.session = session
        self.request = request
    }

    /// The stream's events (a stand-in: it ends at once).
    public var events: AsyncThrowingStream<Event, any Error> { AsyncThrowingStream { $0.finish() } }
}

/// The reader's client of a chat API whose replies stream (`OpenAPIDocumentContract`'s
/// streams): it opens `POST /api/chats/{chat}/reply` and hands each event over.
public struct ChatClient: Sendable {
    public let baseURL: URL
    public let session: URLSession

    public init(baseURL: URL, configuration: URLSessionConfiguration) {
        self.baseURL = baseURL
        session = URLSession(configuration: configuration)
    }

    /// The reply to chat `chat`, event by event.
    public func streamReply(chat: Int, onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding {
        .finished
    }
}

/// The reader's WebSocket client of a live feed ("WebSocket clients"): it opens a socket
/// for a request.
public struct LiveFeedClient: Sendable {
    public init() {}

    /// A socket for `request` (a stand-in: it connects nowhere).
    public func open(_ request: URLRequest) async throws -> LiveFeedSocket { LiveFeedSocket() }
}

/// One open socket of ``LiveFeedClient``: an actor, as a client holding a socket's state is.
public actor LiveFeedSocket {
    /// The close code the socket ended with, once it ended.
    public private(set) var closeCode: UInt16?

    public init() {}

    public func send(text: String) async throws {}
    public func send(data: Data) async throws {}

    /// The next message (a stand-in: the socket is closed).
    public func next() async throws -> WebSocketContract.Message { throw CancellationError() }

    public func close(code: UInt16, reason: String) async { closeCode = code }
}

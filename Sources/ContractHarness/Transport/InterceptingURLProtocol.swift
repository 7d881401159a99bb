import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(ObjectiveC)
import ObjectiveC
#endif

/// The in-process transport for intercepted hosts: it says yes only to a request whose
/// host (and port) a running test intercepts (`InterceptionTable`), and answers it from
/// that test's engine, as `MockURLProtocol` answers a registration's requests. Every
/// other request goes on to the platform's own protocols, unchanged.
///
/// `install()` puts it where requests made with no change to the client meet it:
///
/// - On Apple platforms, `URLProtocol.registerClass(_:)`, which the shared session and
///   `NSURLConnection` consult, and at the head of `protocolClasses` of every configuration
///   `URLSessionConfiguration.default` and `.ephemeral` return from then on (their getters
///   are exchanged for ones that add it, as OHHTTPStubs and Mockingjay do). A session
///   made from a configuration obtained before, or a background session (which takes no
///   custom protocol), is not intercepted. Upload tasks to an intercepted host fail with
///   a reason (`UploadTaskBody`): the loading system shows their body to no protocol, and
///   they must not reach the real host.
/// - In swift-corelibs-foundation (Linux), at the head of the shared session's own
///   configuration, which the shared session consults first for each task. There,
///   `registerClass(_:)` alone reaches the shared session only if it ran before the
///   shared session was first used, and sessions made from `.default` or `.ephemeral`
///   consult only their configuration's classes, whose HTTP protocol says yes to every
///   request: they are not intercepted.
///
/// Headers set on a session's configuration (`httpAdditionalHeaders`) never reach a custom
/// protocol on either platform; an intercepted request carries the request's own headers.
final class InterceptingURLProtocol: MockURLProtocol {
    override class func answerer(for url: URL?) -> InProcessRegistry.Entry? {
        InterceptionTable.shared.answerer(for: url)
    }

    override class var sendsHostHeader: Bool { true }

    #if canImport(Darwin)
    /// Upload tasks too: declined, they would go to the real host.
    override class func canInit(with task: URLSessionTask) -> Bool {
        guard let request = task.currentRequest ?? task.originalRequest else { return false }
        return canInit(with: request)
    }
    #endif

    /// Installs the class once per process (see the type's description). Until a test
    /// intercepts a host it says no to every request, after one look at an empty table.
    static func install() { _ = installed }

    private static let installed: Void = {
        #if canImport(ObjectiveC)
        _ = URLProtocol.registerClass(InterceptingURLProtocol.self)
        exchange(#selector(getter: URLSessionConfiguration.default),
                 with: #selector(URLSessionConfiguration.mockServerInterceptingDefault))
        exchange(#selector(getter: URLSessionConfiguration.ephemeral),
                 with: #selector(URLSessionConfiguration.mockServerInterceptingEphemeral))
        #else
        // corelibs' `URLSession.configuration` is the session's own object, which its tasks
        // read. The array it held is kept for good: a task that read it just before the swap
        // still holds a live array.
        let configuration = URLSession.shared.configuration
        let replaced = configuration.protocolClasses ?? []
        replacedSharedClasses.withLock { $0 = replaced }
        configuration.protocolClasses = [InterceptingURLProtocol.self as AnyClass] + replaced
        #endif
    }()

    #if canImport(ObjectiveC)
    /// Swaps two class methods of `URLSessionConfiguration`; `ours` then runs for `platform`.
    private static func exchange(_ platform: Selector, with ours: Selector) {
        guard let original = class_getClassMethod(URLSessionConfiguration.self, platform),
              let replacement = class_getClassMethod(URLSessionConfiguration.self, ours) else { return }
        method_exchangeImplementations(original, replacement)
    }

    /// `configuration` with this class at the head of its protocols (once).
    static func prepended(to configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let classes = configuration.protocolClasses ?? []
        if !classes.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(InterceptingURLProtocol.self) }) {
            configuration.protocolClasses = [InterceptingURLProtocol.self as AnyClass] + classes
        }
        return configuration
    }
    #else
    private static let replacedSharedClasses = Locked<[AnyClass]>([])
    #endif
}

#if canImport(ObjectiveC)
extension URLSessionConfiguration {
    /// Runs as `URLSessionConfiguration.default` once `InterceptingURLProtocol.install()`
    /// exchanged the two: the call inside then reaches the platform's getter.
    @objc dynamic class func mockServerInterceptingDefault() -> URLSessionConfiguration {
        InterceptingURLProtocol.prepended(to: mockServerInterceptingDefault())
    }

    /// Runs as `URLSessionConfiguration.ephemeral` once exchanged, likewise.
    @objc dynamic class func mockServerInterceptingEphemeral() -> URLSessionConfiguration {
        InterceptingURLProtocol.prepended(to: mockServerInterceptingEphemeral())
    }
}
#endif

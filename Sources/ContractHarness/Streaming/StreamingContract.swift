import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The contract for a server-sent events client (``EventStreamProvider``): the streaming
/// checks of ``StreamingChecks`` against `GET path` on each check's own server, in process
/// by default, or over its sockets (`.sockets`, `.secureSockets`), where the checks play
/// and judge the same.
///
///     let report = await StreamingContract.suite().run { context in
///         MyEventStreamAdapter(client: ChatClient(session: URLSession(configuration: context.sessionConfiguration),
///                                                 timeout: context.timeout))
///     }
///     #expect(report.passed, "\(report)")
///
/// The checks (ids `stream.…`): `events.order`, `events.split`, `ending.drop`,
/// `ending.no-terminator`, `stall`, `cancellation`, `resume`.
public enum StreamingContract {
    /// A check of an ``EventStreamProvider``.
    public typealias Check = ContractCheck<any EventStreamProvider>

    /// The suite, run in process by default (no sockets, so the quickest); over
    /// `.sockets` or `.secureSockets` the same checks play each event when it is due on the
    /// wire, over HTTP/1.1 or (HTTPS) HTTP/2.
    /// - Parameters:
    ///   - configuration: Timeout, margin and the rest.
    ///   - path: The stream's path on the check's server; the provider is asked to open
    ///     `GET` there.
    public static func suite(_ configuration: SuiteConfiguration = SuiteConfiguration(transport: .inProcess),
                             path: String = "/events") -> ContractSuite<any EventStreamProvider> {
        ContractSuite(name: "Streaming (server-sent events)", checks: checks(configuration, path: path), configuration: configuration)
    }

    /// The suite's checks.
    public static func checks(_ configuration: SuiteConfiguration, path: String = "/events") -> [Check] {
        StreamingChecks.checks("stream", stream: "GET \(path)", patterns: [.get(path)], configuration: configuration,
                               resumes: { $0.resumesWithLastEventID }) { run, onEvent in
            await run.provider.stream(URLRequest(url: run.url(path)), onEvent: onEvent)
        }
    }
}

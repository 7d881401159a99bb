import ContractHarness
import Foundation
import MockCore
import OpenAPIDocumentAPI

extension OpenAPIContract {
    /// How the client opens one documented event stream, and whether it resumes it.
    public struct StreamCall<Client: Sendable>: Sendable {
        /// Whether the client resumes a broken stream with `Last-Event-ID`
        /// (`EventStreamProvider.resumesWithLastEventID`).
        public var resumes: Bool
        /// Opens the stream with the client, hands each event to `onEvent` as the client
        /// dispatches it, and says how the stream ended
        /// (`EventStreamProvider.stream(_:onEvent:)` states the contract).
        public var open: @Sendable (Client, _ onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding

        /// A stream call: `open` makes it; `resumes` says whether the client resumes.
        public init(resumes: Bool = false,
                    open: @escaping @Sendable (Client, _ onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding) {
            self.resumes = resumes
            self.open = open
        }
    }

    /// The streaming checks (`StreamingChecks`) for the operations the
    /// document answers with a `text/event-stream` body, against your client. Ids are
    /// `API.OPERATION.stream.…`.
    ///
    ///     let suite = try OpenAPIContract.streamingSuite(document: url, client: ChatClient.self, streams: [
    ///         "streamReply": .init(resumes: true) { client, onEvent in
    ///             await client.streamReply(chat: 1, onEvent: onEvent)
    ///         },
    ///     ])
    ///     let report = await suite.run { context in ChatClient(baseURL: context.baseURL, configuration: context.sessionConfiguration) }
    ///
    /// Each check's server answers the operation's requests (under each of the document's
    /// servers' paths, any path parameters) with a scenario stream of the check's own,
    /// with events, breaks and stalls the check needs: the document's own `text/event-stream`
    /// examples are not played as a stream. The configuration's transport is
    /// `.inProcess` by default; the checks play the same over `.sockets` and `.secureSockets`.
    /// - Parameters:
    ///   - document: The OpenAPI document (3.0, 3.1 or 3.2; YAML or JSON).
    ///   - client: The type the provider is: your client, or an adapter over it.
    ///   - name: The API's name, first in every check's id; by default from the file's name.
    ///   - configuration: Timeout, transport and the rest; its `apis` is set to the document's API.
    ///   - streams: A call per streaming operation, keyed by `operationId` (else `METHOD path`).
    /// - Throws: `OpenAPIContractError` when the document cannot be read, a call names no
    ///   operation of it, or an operation it names has no `text/event-stream` response.
    public static func streamingSuite<Client: Sendable>(document: URL, client: Client.Type = Client.self, name: String? = nil,
                                                        configuration: SuiteConfiguration = SuiteConfiguration(transport: .inProcess),
                                                        streams: [String: StreamCall<Client>]) throws(OpenAPIContractError) -> ContractSuite<Client> {
        let (api, loaded) = try DocumentContext.read(document, name: name, naming: streams.keys)
        let streaming = loaded.operations.filter { documentsEventStream($0, in: loaded.json) }
        let notStreams = streams.keys.filter { key in !streaming.contains { $0.name == key } }.sorted()
        guard notStreams.isEmpty else { throw .notEventStreams(notStreams, streams: streaming.map(\.name)) }

        var configuration = configuration
        configuration.apis = [api]
        let context = DocumentContext(api: api.name, document: loaded)
        var checks: [ContractCheck<Client>] = []
        for operation in streaming {
            guard let call = streams[operation.name] else { continue }
            let patterns = loaded.basePaths.map { operation.requestPattern(under: $0) }
            checks += StreamingChecks.checks("\(context.api).\(operation.name).stream", stream: "\(operation.name) (\(context.describe(operation)))",
                                             patterns: patterns, configuration: configuration, resumes: { _ in call.resumes }) { run, onEvent in
                await call.open(run.provider, onEvent)
            }
        }
        let missing = streaming.filter { streams[$0.name] == nil }
        checks.append(ContractCheck("\(context.api).stream-coverage", .recommended, "every operation the document streams has a stream call") { run in
            try run.require(missing.isEmpty, "a stream call for each of the document's \(streaming.count) streaming operations",
                            actual: "\(missing.count) have none", differences: missing.map { "\($0.name) (\(context.describe($0))) has no stream call" })
        })
        return ContractSuite(name: "\(api.name) streams (OpenAPI document)", checks: checks, configuration: configuration)
    }

    /// Whether any of `operation`'s responses has a `text/event-stream` body (local
    /// `$ref`s followed).
    static func documentsEventStream(_ operation: DocumentOperation, in document: JSONValue) -> Bool {
        let item = resolved(document["paths"]?[operation.path], in: document)
        let responses = resolved(item?[operation.method.lowercased()], in: document)?["responses"]?.objectValue ?? [:]
        return responses.values.contains { response in
            (resolved(response, in: document)?["content"]?.objectValue ?? [:]).keys.contains { type in
                type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "text/event-stream"
            }
        }
    }

    /// `value`, or what its local `$ref` (`#/components/…`) points at, a few hops deep.
    static func resolved(_ value: JSONValue?, in document: JSONValue) -> JSONValue? {
        var current = value
        for _ in 0..<8 {
            guard let reference = current?["$ref"]?.stringValue else { return current }
            guard reference.hasPrefix("#/") else { return nil }
            current = reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false).reduce(Optional(document)) { node, token in
                node?[token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")]
            }
        }
        return nil
    }
}

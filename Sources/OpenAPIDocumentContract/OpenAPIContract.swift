import ContractHarness
import Foundation
import MockCore
import OpenAPIDocumentAPI

/// A contract suite for a client of your own API, made from the API's OpenAPI document.
///
/// You give one call per operation, keyed by its `operationId` (or `METHOD path` for an
/// operation without one): a closure that makes the call with your client and returns
/// what it decoded, in your own model types, or throws as your client does. Each check
/// runs against a server of its own that serves the document alone, stateless, so every
/// call gets the document's answer whatever ids it uses; the client is made per check from
/// the server's `ProviderContext`.
///
///     let suite = try OpenAPIContract.suite(document: url, client: TodoClient.self, calls: [
///         "listTodos": { try await $0.todos() },
///         "createTodo": { try await $0.create(title: "Milk") },
///     ])
///     let report = await suite.run { context in
///         TodoClient(baseURL: context.baseURL.appendingPathComponent("v1"),
///                    session: URLSession(configuration: context.sessionConfiguration))
///     }
///     #expect(report.passed, "\(report)")
///
/// For each operation with a call (ids `API.OPERATION.CHECK`):
/// - `request`: the call's requests reach the operation and keep the document
///   (parameters, required ones, bodies), also where the mock answers leniently;
/// - `answers`: the call returns for each documented success (each named example), and
///   throws on each documented error status — an error that is not a `DecodingError`,
///   which would mean the error body was decoded as a success, or that the client's error
///   model does not fit the documented one (see ``Call``). Each answer comes at once, so
///   each call may last the timeout and its margin; one still running then is named with
///   its answer;
///   An operation that documents a `text/event-stream` answer, called by a client that
///   asks for it (`stream: true` in its body, or `Accept: text/event-stream`), is given the
///   documented stream as events, each when it is due, and the call must return on it; the
///   events themselves are not judged as a JSON body;
/// - `timeout.hang`, `timeout.slow-in-time` (for an operation with a documented success),
///   `cancellation`: as in the shipped suites (`CommonChecks`), under each of the
///   document's servers' paths, whichever the client uses.
///
/// `API.coverage` (recommended) lists the document's operations that have no call.
public enum OpenAPIContract {
    /// One operation's call: makes it with the client, returning on success and throwing on
    /// an error, as the `answers` check holds it to:
    /// - On a documented success (a 2xx) it returns what the client decoded, `Void` too.
    /// - On a documented error outcome (any non-2xx status the document lists for the
    ///   operation: a 4xx, a 5xx, a range such as `4XX`, `default` beside a success; 1xx
    ///   and 3xx responses are not given) it throws, and not a `DecodingError`. A client
    ///   that reports errors by returning them (a `Result`, a status enum, an optional)
    ///   fails `answers` with "an error status taken for success": give it a closure that
    ///   throws on its error cases (`{ try await $0.pet(id: 1).get() }`).
    /// - What it returns is `Sendable`; the reports print it (at most 120 characters).
    public typealias Call<Client: Sendable> = @Sendable (Client) async throws -> any Sendable

    /// The checks of the document at `document` for the operations in `calls`.
    /// - Parameters:
    ///   - document: The OpenAPI document (3.0, 3.1 or 3.2; YAML or JSON).
    ///   - client: The type the provider is: your client, or an adapter over it.
    ///   - name: The API's name, first in every check's id; by default from the file's name.
    ///   - configuration: Timeout, transport and the rest; its `apis` is set to the document's API.
    ///   - calls: A call per operation, keyed by `operationId` (else `METHOD path`).
    /// - Throws: `OpenAPIContractError` when the document cannot be read, or a call names
    ///   no operation of it.
    public static func suite<Client: Sendable>(document: URL, client: Client.Type = Client.self, name: String? = nil,
                                               configuration: SuiteConfiguration = SuiteConfiguration(),
                                               calls: [String: Call<Client>]) throws(OpenAPIContractError) -> ContractSuite<Client> {
        let (api, loaded) = try DocumentContext.read(document, name: name, naming: calls.keys)

        var configuration = configuration
        configuration.apis = [api]
        let context = DocumentContext(api: api.name, document: loaded)
        var checks: [ContractCheck<Client>] = []
        for operation in loaded.operations {
            guard let call = calls[operation.name] else { continue }
            checks += Self.checks(operation, context, configuration) { try await call($0) }
        }
        let missing = loaded.operations.filter { calls[$0.name] == nil }
        checks.append(coverage(context, missing: missing))
        return ContractSuite(name: "\(api.name) (OpenAPI document)", checks: checks, configuration: configuration)
    }

    /// Every check of one operation.
    static func checks<Client: Sendable>(_ operation: DocumentOperation, _ context: DocumentContext, _ configuration: SuiteConfiguration,
                                         _ call: @escaping @Sendable (Client) async throws -> any Sendable) -> [ContractCheck<Client>] {
        let id = "\(context.api).\(operation.name)"
        // The client may use any of the document's servers: the rules apply under each.
        let patterns = context.document.basePaths.map { operation.requestPattern(under: $0) }
        let invoke: @Sendable (CheckRun<Client>) async throws -> Returned = { Returned(try await call($0.provider)) }
        var checks = [
            request(id + ".request", operation, context, invoke),
            answers(id + ".answers", operation, context, callLimit: configuration.timeout + configuration.timeoutMargin, invoke),
            CommonChecks.hangTimesOut(id + ".timeout.hang", call: operation.name, patterns: patterns, margin: configuration.timeoutMargin, invoke),
        ]
        // A slow answer that must succeed needs a success to be slow with.
        if operation.answers.contains(where: \.isSuccess) {
            checks.append(CommonChecks.slowButInTime(id + ".timeout.slow-in-time", call: operation.name, patterns: patterns,
                                                     delay: configuration.timeout * 0.6, invoke))
        }
        checks.append(CommonChecks.cancellationSendsNothingMore(id + ".cancellation", call: operation.name, patterns: patterns,
                                                                delay: configuration.timeout * 0.6, invoke))
        return checks
    }

    /// The document's operations that have no call.
    static func coverage<Client: Sendable>(_ context: DocumentContext, missing: [DocumentOperation]) -> ContractCheck<Client> {
        ContractCheck("\(context.api).coverage", .recommended, "every operation of the document has a call") { run in
            try run.require(missing.isEmpty, "a call for each of the document's \(context.document.operations.count) operations",
                            actual: "\(missing.count) have none",
                            differences: missing.map { "\($0.name) (\(context.describe($0))) has no call" })
        }
    }
}

/// What every check of one document knows of it.
struct DocumentContext: Sendable {
    /// The API's name: the journal's routes are `API.OPERATION`.
    let api: String
    let document: OpenAPIDocument
    /// The first of the servers' paths: the one the messages name an operation under.
    var basePath: String { document.basePaths.first ?? "" }

    /// `GET /api/pets/{petId}`; under each of the servers' paths where the document has
    /// several (`GET /v1/pets/{petId} or /v2/pets/{petId}`).
    func describe(_ operation: DocumentOperation) -> String {
        "\(operation.method) " + document.basePaths.map { $0 + operation.path }.joined(separator: " or ")
    }

    /// The document at `document` read for a suite (stateless: each check's server answers
    /// from the document alone), refusing call keys that name none of its operations.
    static func read(_ document: URL, name: String?, naming keys: some Collection<String>) throws(OpenAPIContractError) -> (OpenAPIDocumentAPI, OpenAPIDocument) {
        let api: OpenAPIDocumentAPI
        let loaded: OpenAPIDocument
        do {
            api = try OpenAPIDocumentAPI(contentsOf: document, name: name, stateful: false)
            loaded = try api.document()
        } catch {
            throw .unreadableDocument(error)
        }
        let known = Set(loaded.operations.map(\.name))
        let unknown = keys.filter { !known.contains($0) }.sorted()
        guard unknown.isEmpty else { throw .unknownOperations(unknown, known: loaded.operations.map(\.name)) }
        return (api, loaded)
    }
}

/// What a call returned, as the reports print it (at most 120 characters).
struct Returned: Sendable, CustomStringConvertible {
    let value: any Sendable
    init(_ value: any Sendable) { self.value = value }
    var description: String {
        let text = "\(value)"
        return text.count > 120 ? String(text.prefix(120)) + "…" : text
    }
}

/// Why `OpenAPIContract.suite(document:client:name:configuration:calls:)` (or
/// `streamingSuite(document:client:name:configuration:streams:)`) made no suite.
public enum OpenAPIContractError: Error, CustomStringConvertible {
    /// The document cannot be read: the file, the JSON pointer and the problem.
    case unreadableDocument(FixtureError)
    /// Calls keyed by names that are no operation of the document.
    case unknownOperations([String], known: [String])
    /// Stream calls for operations the document answers with no `text/event-stream` body;
    /// `streams` are those it does.
    case notEventStreams([String], streams: [String])

    /// What is wrong, and what to give instead.
    public var description: String {
        switch self {
        case .unreadableDocument(let error):
            return "the OpenAPI document cannot be read: \(error)"
        case .unknownOperations(let names, let known):
            return "calls for operations the document does not have: \(names.joined(separator: ", ")); key each call by an operationId "
                + "(or METHOD path for an operation without one): \(known.joined(separator: ", "))"
        case .notEventStreams(let names, let streams):
            return "stream calls for operations the document answers with no text/event-stream body: \(names.joined(separator: ", ")); "
                + (streams.isEmpty ? "the document streams none" : "it streams \(streams.joined(separator: ", "))")
        }
    }
}

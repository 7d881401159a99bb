import Foundation
import MockCore

/// Pact files out: `GET /__admin/pact` writes the journal's interactions as a Pact,
/// and `POST /__admin/pact/state` sets up the provider states such a Pact names, so this
/// server can be the provider a Pact verifier replays it against.
extension AdminAPI {
    static func pactRoutes(_ engine: MockEngine) -> [Route] {
        [
            // ?consumer=NAME&provider=NAME[&session=S][&spec=3|4]
            Route("admin.pact", .get("/__admin/pact")) { request, _ in
                guard let consumer = request.queryValue("consumer"), !consumer.isEmpty,
                      let provider = request.queryValue("provider"), !provider.isEmpty else {
                    return .error(400, "Name both sides: /__admin/pact?consumer=NAME&provider=NAME (and session=S for one session, spec=3 for a V3 file)")
                }
                let specification: PactExport.Specification
                switch request.queryValue("spec") ?? "4" {
                case "4", "4.0": specification = .v4
                case "3", "3.0.0": specification = .v3
                case let other: return .error(400, "\"spec\" must be 3 or 4, found \"\(other)\"")
                }
                var entries = engine.journal.entries()
                if let session = request.queryValue("session") { entries = entries.filter { $0.session == session } }
                let export = PactExport(consumer: consumer, provider: provider, specification: specification)
                return .json(200, export.pact(from: entries).document)
            },
            // A Pact verifier's state change: {"state": NAME, "params": {...}, "action": "setup"|"teardown"}.
            Route("admin.pact.state", .post("/__admin/pact/state")) { request, _ in
                switch body(request, example: #"{"state": "…", "params": {"replay": []}, "action": "setup"}"#) {
                case .failure(let rejected): return rejected.plan
                case .success(let members):
                    guard members["action"]?.stringValue != "teardown" else { return .json(200, ["state": members["state"] ?? .null, "action": "teardown"]) }
                    return setUpPactState(members["params"] ?? [:], engine: engine)
                }
            },
        ]
    }

    /// Back to the fixtures and the server's own scenario, then the state's requests
    /// replayed in order (scenario switches among them), as the client sent them.
    static func setUpPactState(_ params: JSONValue, engine: MockEngine) -> ResponsePlan {
        engine.resetState()
        do {
            try engine.scenarios.select(engine.configuration.scenario)
        } catch {
            return .error(500, "The server's own scenario: \(error)")
        }
        let replay = params["replay"]?.arrayValue ?? []
        let responder = AdminAPI(engine: engine)
        var answers: [JSONValue] = []
        for (index, item) in replay.enumerated() {
            guard let method = item["method"]?.stringValue, let uri = item["uri"]?.stringValue, uri.hasPrefix("/") else {
                return .error(400, "$.params.replay[\(index)] needs a method and a uri starting with /")
            }
            var body = Data()
            if let encoded = item["body"]?.stringValue {
                guard let decoded = Data(base64Encoded: encoded) else { return .error(400, "$.params.replay[\(index)].body is not base64") }
                body = decoded
            }
            let headers = HeaderFields((item["headers"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.compactMap { name, value in
                value.stringValue.map { (name, $0) }
            })
            guard uri != "/__admin/pact/state" else { continue }
            let plan = responder.respond(to: MockRequest(method: method, uri: uri, headers: headers, body: body, receivedAt: engine.timeSource.now()))
            answers.append(.number(Double(plan.status)))
        }
        return .json(200, ["replayed": .number(Double(answers.count)), "statuses": .array(answers), "scenario": .string(engine.scenarios.currentScenario)])
    }
}

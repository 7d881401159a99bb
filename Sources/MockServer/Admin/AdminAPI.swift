import Foundation
import Scenarios

/// The admin API under `/__admin`: scenario listing, switching and reset. Everything else
/// goes to the engine. Admin calls are journaled too, marked `admin.*`.
public struct AdminAPI: Responder {
    public static let prefix = "/__admin"
    public let engine: MockEngine
    let router: Router

    public init(engine: MockEngine) {
        self.engine = engine
        let scenarios = engine.scenarios
        router = Router(routes: [
            Route("admin.scenarios", .get("/__admin/scenarios")) { _, _ in
                let list: [JSONValue] = scenarios.library.names.compactMap { name in
                    scenarios.library[name].map { ["name": .string($0.name), "description": .string($0.description), "rules": .number(Double($0.rules.count))] }
                }
                return .json(200, ["current": .string(scenarios.currentScenario), "scenarios": .array(list)])
            },
            Route("admin.scenario", .get("/__admin/scenario")) { request, _ in
                let session = request.queryValue("session") ?? ScenarioEngine.defaultSession
                let (name, states) = scenarios.machineStates(session: session)
                return .json(200, ["name": .string(name), "session": .string(session),
                                   "states": .object(states.mapValues(JSONValue.string))])
            },
            Route("admin.scenario.select", RequestPattern(method: "PUT", path: "/__admin/scenario")) { request, _ in
                guard let body = JSONValue(parsing: request.body), let name = body["name"]?.stringValue else {
                    return .error(400, "Send JSON like {\"name\": \"flaky\"} (and optionally \"session\")")
                }
                do {
                    try scenarios.select(name, session: body["session"]?.stringValue)
                } catch {
                    return .error(400, "\(error)")
                }
                var answer: [String: JSONValue] = ["name": .string(name)]
                if let session = body["session"]?.stringValue { answer["session"] = .string(session) }
                return .json(200, .object(answer))
            },
            Route("admin.scenario.reset", .post("/__admin/scenario/reset")) { request, _ in
                let session = JSONValue(parsing: request.body)?["session"]?.stringValue
                scenarios.reset(session: session)
                return .json(200, ["reset": .string(session ?? "all sessions")])
            },
        ])
    }

    public func respond(to request: MockRequest) -> ResponsePlan {
        guard request.path == Self.prefix || request.path.hasPrefix(Self.prefix + "/") else {
            return engine.respond(to: request)
        }
        let plan = router.respond(to: request)
        engine.journal.record(request, plan: plan)
        return plan
    }
}

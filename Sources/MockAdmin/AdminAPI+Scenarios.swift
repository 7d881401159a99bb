import Foundation
import MockCore

extension AdminAPI {
    static func scenarioRoutes(_ engine: MockEngine) -> [Route] {
        let scenarios = engine.scenarios
        return [
            Route("admin.scenarios", .get("/__admin/scenarios")) { _, _ in
                let library = scenarios.library
                let list: [JSONValue] = library.names.compactMap { name in
                    library[name].map { ["name": .string($0.name), "description": .string($0.description), "rules": .number(Double($0.rules.count))] }
                }
                return .json(200, ["current": .string(scenarios.currentScenario), "scenarios": .array(list)])
            },
            Route("admin.scenario", .get("/__admin/scenario")) { request, _ in
                let session = request.queryValue("session") ?? ScenarioEngine.defaultSession
                let (name, states) = scenarios.machineStates(session: session)
                return .json(200, ["name": .string(name), "session": .string(session), "states": .object(states.mapValues(JSONValue.string))])
            },
            Route("admin.scenario.select", RequestPattern(method: "PUT", path: "/__admin/scenario")) { request, _ in
                guard let body = JSONValue(parsing: request.body), let name = body["name"]?.stringValue else {
                    return .error(400, "Send JSON like {\"name\": \"flaky\"} (and optionally \"session\")")
                }
                let session = body["session"]?.stringValue
                do {
                    try scenarios.select(name, session: session)
                } catch {
                    return .error(400, "\(error)")
                }
                var answer: [String: JSONValue] = ["name": .string(name)]
                if let session { answer["session"] = .string(session) }
                engine.events.publish("state", .object(answer.merging(["change": "scenario"]) { a, _ in a }))
                return .json(200, .object(answer))
            },
            Route("admin.scenario.reset", .post("/__admin/scenario/reset")) { request, _ in
                let session = JSONValue(parsing: request.body)?["session"]?.stringValue
                scenarios.reset(session: session)
                engine.events.publish("state", ["change": "scenario-reset", "session": .string(session ?? "all")])
                return .json(200, ["reset": .string(session ?? "all sessions")])
            },
        ]
    }
}

extension AdminAPI {
    /// `GET /__admin/network`: the presets, the server's profile and each session's.
    /// `PUT /__admin/network` with `{"profile": "3G"}` (a preset's name, a custom object,
    /// or null for none) and optionally `"session"`.
    static func networkRoutes(_ engine: MockEngine) -> [Route] {
        let network = engine.network
        return [
            Route("admin.network", .get("/__admin/network")) { _, _ in
                .json(200, [
                    "profile": network.configured()?.json ?? .null,
                    "sessions": .object(network.sessionProfiles.mapValues(\.json)),
                    "presets": .array(NetworkProfile.presets.map(\.json)),
                ])
            },
            Route("admin.network.select", RequestPattern(method: "PUT", path: "/__admin/network")) { request, _ in
                let example = "{\"profile\": \"3G\"} (a preset's name, an object like {\"uplinkKbps\": 330, \"downlinkDelayMs\": 100}, or null), and optionally \"session\""
                guard case .object(let body)? = JSONValue(parsing: request.body), let given = body["profile"] else {
                    return .error(400, "Send JSON like \(example)")
                }
                var profile: NetworkProfile?
                if given != .null {
                    switch NetworkProfile.parse(given) {
                    case .success(let parsed): profile = parsed
                    case .failure(let error): return .error(400, error.description)
                    }
                }
                let session = body["session"]?.stringValue
                network.set(profile, session: session)
                var answer: [String: JSONValue] = ["profile": profile?.json ?? .null]
                if let session { answer["session"] = .string(session) }
                engine.events.publish("state", .object(answer.merging(["change": "network"]) { a, _ in a }))
                return .json(200, .object(answer))
            },
        ]
    }
}

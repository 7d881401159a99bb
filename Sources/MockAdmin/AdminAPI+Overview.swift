import Foundation
import MockCore

extension AdminAPI {
    /// `GET /__admin/overview[?session=NAME]`: what the dashboard shows at a glance — the
    /// APIs served (name, variant, hosts) and their routes and the current scenario's rules with their hit counts, the scenario's
    /// state machines, the network profile, and the other answerers (stubs, a proxy's
    /// upstream, unmatched requests).
    static func overviewRoute(_ engine: MockEngine) -> Route {
        Route("admin.overview", .get("/__admin/overview")) { request, _ in
            let session = request.queryValue("session") ?? ScenarioEngine.defaultSession
            var hits = engine.journal.hitCounts()
            let routes: [JSONValue] = engine.router.routes.map { route in
                let count = hits.removeValue(forKey: route.name) ?? 0
                return ["name": .string(route.name), "request": .string(route.pattern.description), "hits": .number(Double(count))]
            }
            let (scenario, ruleHits, states) = engine.scenarios.activity(session: session)
            let rules: [JSONValue] = scenario.rules.enumerated().map { index, rule in
                var entry: [String: JSONValue] = ["name": .string(rule.name), "request": .string(rule.request.description),
                                                  "hits": .number(Double(ruleHits[index] ?? 0))]
                if let state = rule.state {
                    var transition: [String: JSONValue] = ["machine": .string(state.machine)]
                    if let required = state.required { transition["is"] = .string(required) }
                    if let becomes = state.becomes { transition["becomes"] = .string(becomes) }
                    entry["state"] = .object(transition)
                }
                return .object(entry)
            }
            let machineNames = Set(scenario.rules.compactMap { $0.state?.machine })
            var machines: [String: JSONValue] = [:]
            for name in machineNames { machines[name] = .string(states[name] ?? StateRequirement.started) }
            let other = hits.filter { !$0.key.hasPrefix("admin.") }.mapValues { JSONValue.number(Double($0)) }
            return .json(200, [
                "session": .string(session),
                "scenario": ["name": .string(scenario.name), "description": .string(scenario.description),
                             "rules": .array(rules), "machines": .object(machines)],
                "apis": .array(engine.apis.compactMap { name -> JSONValue? in
                    guard let served = engine.servedAPI(named: name) else { return nil }
                    return ["name": .string(name), "variant": .string(served.variant), "hosts": .array(served.api.hosts.map(JSONValue.string))]
                }),
                "routes": .array(routes),
                "other": .object(other),
                "network": engine.network.configured(session: session == ScenarioEngine.defaultSession ? nil : session)?.json
                    ?? engine.network.configured()?.json ?? .null,
                "total": .number(Double(engine.journal.totalCount)),
            ])
        }
    }
}

/// The per-session state `ScenarioEngine` keeps under its lock.
extension ScenarioEngine {
    /// One session's scenario and runtimes, by reference: a request finds the session and
    /// the runtime it used last without hashing their names again (two dictionary lookups
    /// per request otherwise). Only touched under `state`'s lock.
    final class Session {
        @exclusivity(unchecked) var scenario: String?
        /// Changed only by the methods below, which forget `last`.
        @exclusivity(unchecked) private(set) var runtimes: [String: Runtime] = [:]
        /// The runtime the latest request played.
        @exclusivity(unchecked) private var last: Runtime?

        init(scenario: String? = nil) { self.scenario = scenario }

        func runtime(named name: String) -> Runtime? {
            // `==` on the same string's storage (the server's current scenario, a session's)
            // is a pointer comparison.
            if let last, last.name == name { return last }
            last = runtimes[name]
            return last
        }

        @discardableResult
        func setRuntime(_ runtime: ScenarioRuntime, named name: String) -> Runtime {
            let box = Runtime(name: name, runtime)
            runtimes[name] = box
            last = box
            return box
        }

        func dropRuntime(named name: String) {
            runtimes[name] = nil
            last = nil
        }

        func dropRuntimes() {
            runtimes = [:]
            last = nil
        }
    }

    /// A runtime, changed in place through its session.
    final class Runtime {
        let name: String
        @exclusivity(unchecked) var value: ScenarioRuntime
        init(name: String, _ value: ScenarioRuntime) {
            self.name = name
            self.value = value
        }
    }
}

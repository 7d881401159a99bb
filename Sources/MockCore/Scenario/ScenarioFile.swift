import Foundation

/// Reads scenario files (format version 1, described by `scenario.schema.json` beside the
/// shipped scenarios) into `Scenario` values — the same values the Swift API builds.
/// Times in files are milliseconds.
public enum ScenarioFile {
    /// Reads and validates one scenario file; every problem is thrown together, with the file and JSON path.
    public static func load(_ url: URL) throws(FixtureError) -> Scenario {
        try parse(FixtureFile.read(url), file: url.path, directory: url.deletingLastPathComponent())
    }

    /// `directory` is where `bodyFile` paths start; without one, `bodyFile` is refused.
    public static func parse(_ data: Data, file: String, directory: URL? = nil) throws(FixtureError) -> Scenario {
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            // Our parser says where the syntax breaks. Not `JSONDecoder`: swift-foundation
            // traps on some malformed input (a CR, then arrays nested past 512 levels and
            // left open; found by fuzz-scenario), and a bad file is an error, not a crash.
            throw FixtureError(file: file, reason: "not valid JSON: \(error)")
        }
        let reader = JSONReader(file: file)
        let scenario = ScenarioParser(reader: reader, directory: directory).scenario(json)
        guard reader.problems.isEmpty, let scenario else {
            throw FixtureError(reader.problems.isEmpty ? [FixtureProblem(file: file, reason: "not a scenario")] : reader.problems)
        }
        return scenario
    }

    /// Every `*.json` scenario in a folder (the schema file is skipped), problems from all
    /// files reported together.
    public static func loadFolder(_ folder: URL) throws(FixtureError) -> [Scenario] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".schema.json") }
            .sorted()
        var scenarios: [Scenario] = []
        var problems: [FixtureProblem] = []
        var seen: [String: String] = [:]
        for name in names {
            let url = folder.appendingPathComponent(name)
            do {
                let scenario = try load(url)
                if let other = seen[scenario.name] {
                    problems.append(FixtureProblem(file: url.path, jsonPath: "$.name", reason: "the name \"\(scenario.name)\" is already used by \(other)"))
                }
                seen[scenario.name] = name
                scenarios.append(scenario)
            } catch {
                problems += error.problems
            }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        return scenarios
    }
}

struct ScenarioParser {
    let reader: JSONReader
    /// The scenario file's folder: `bodyFile` paths are relative to it.
    var directory: URL?

    func scenario(_ json: JSONValue) -> Scenario? {
        guard let root = reader.object(json, "$", keys: ["$schema", "version", "name", "description", "seed", "defaults", "rules", "tls"]) else { return nil }
        if let version = reader.integer(root["version"], "$.version", required: true), version != Scenario.formatVersion {
            reader.problem("$.version", "this server reads format version \(Scenario.formatVersion), found \(version)")
        }
        let name = reader.string(root["name"], "$.name", required: true)
        if let name, name.isEmpty || name.contains("/") { reader.problem("$.name", "must be non-empty and contain no \"/\"") }
        let description = reader.string(root["description"], "$.description") ?? ""
        let seed = reader.integer(root["seed"], "$.seed", range: 0...Int.max).map { UInt64($0) }
        var defaults = Scenario.Defaults()
        if let members = reader.object(root["defaults"], "$.defaults", keys: ["latency", "throttle"]) {
            defaults.latency = latency(members["latency"], "$.defaults.latency")
            defaults.throttle = throttle(members["throttle"], "$.defaults.throttle")
        }
        var rules: [Rule] = []
        var names = Set<String>()
        for (index, element) in (reader.array(root["rules"], "$.rules") ?? []).enumerated() {
            let path = "$.rules[\(index)]"
            guard let rule = rule(element, path) else { continue }
            if !names.insert(rule.name).inserted { reader.problem("\(path).name", "duplicate rule name \"\(rule.name)\"") }
            rules.append(rule)
        }
        guard let name else { return nil }
        let handshake = root["tls"].flatMap { tlsHandshake($0, "$.tls") }
        return Scenario(name: name, description: description, seed: seed, defaults: defaults, rules: rules, tls: handshake)
    }

    func rule(_ json: JSONValue, _ path: String) -> Rule? {
        guard let members = reader.object(json, path, keys: ["name", "request", "response", "responses", "afterLast", "random", "state"]) else { return nil }
        let name = reader.string(members["name"], "\(path).name", required: true)
        let pattern = request(members["request"], "\(path).request")
        if members["request"] == nil { reader.problem("\(path).request", "required key is missing") }
        let given = ["response", "responses", "random"].filter { members[$0] != nil }
        guard given.count == 1 else {
            reader.problem(path, given.isEmpty ? "needs one of \"response\", \"responses\" or \"random\""
                                               : "give only one of \(given.map { "\"\($0)\"" }.joined(separator: ", "))")
            return nil
        }
        var selection: ResponseSelection?
        if let single = members["response"] {
            selection = outcome(single, "\(path).response").map { .sequence([$0], afterLast: .repeatLast) }
        } else if let list = reader.array(members["responses"], "\(path).responses") {
            if list.isEmpty { reader.problem("\(path).responses", "must not be empty") }
            let outcomes = list.enumerated().compactMap { outcome($1, "\(path).responses[\($0)]") }
            let end = members["afterLast"] == nil ? .repeatLast
                : reader.choice(members["afterLast"], "\(path).afterLast", Dictionary(uniqueKeysWithValues: SequenceEnd.allCases.map { ($0.rawValue, $0) }))
            if outcomes.count == list.count, let end { selection = .sequence(outcomes, afterLast: end) }
        } else if let list = reader.array(members["random"], "\(path).random") {
            if list.isEmpty { reader.problem("\(path).random", "must not be empty") }
            let choices = list.enumerated().compactMap { index, element -> WeightedOutcome? in
                let itemPath = "\(path).random[\(index)]"
                guard let item = reader.object(element, itemPath, keys: ["weight", "response"]) else { return nil }
                let weight = reader.number(item["weight"], "\(itemPath).weight", required: true, range: 0...1e9)
                if item["response"] == nil { reader.problem("\(itemPath).response", "required key is missing") }
                let parsed = item["response"].flatMap { outcome($0, "\(itemPath).response") }
                guard let weight, let parsed else { return nil }
                return WeightedOutcome(weight, parsed)
            }
            if choices.count == list.count, choices.contains(where: { $0.weight > 0 }) {
                selection = .random(choices)
            } else if choices.count == list.count {
                reader.problem("\(path).random", "at least one weight must be above zero")
            }
        }
        var requirement: StateRequirement?
        if let state = reader.object(members["state"], "\(path).state", keys: ["machine", "is", "becomes"]) {
            requirement = StateRequirement(
                machine: reader.string(state["machine"], "\(path).state.machine") ?? "default",
                is: reader.string(state["is"], "\(path).state.is"),
                becomes: reader.string(state["becomes"], "\(path).state.becomes"))
        }
        guard let name, let pattern, let selection else { return nil }
        return Rule(name, pattern, selection, state: requirement)
    }

    func request(_ json: JSONValue?, _ path: String) -> RequestPattern? {
        guard let members = reader.object(json, path, keys: ["method", "path", "query", "headers", "body"]) else { return nil }
        let method = reader.string(members["method"], "\(path).method")
        if let method, !method.allSatisfy({ $0.isLetter }) { reader.problem("\(path).method", "\"\(method)\" is not an HTTP method") }
        let pathTemplate = reader.string(members["path"], "\(path).path")
        if let pathTemplate, !pathTemplate.hasPrefix("/") { reader.problem("\(path).path", "must start with \"/\"") }
        let query = matchers(members["query"], "\(path).query")
        let headers = matchers(members["headers"], "\(path).headers")
        var body: BodyPattern?
        let bodyKeys = Self.bodyPatternKeys + ["contains"]
        if let bodyMembers = reader.object(members["body"], "\(path).body", keys: Set(bodyKeys)) {
            if bodyMembers.count != 1 { reader.problem("\(path).body", "give exactly one of \(bodyKeys.joined(separator: ", "))") }
            for key in bodyKeys {
                if let value = bodyMembers[key], let pattern = bodyPattern(key, value, "\(path).body.\(key)") { body = pattern }
            }
        }
        return RequestPattern(method: method, path: pathTemplate, query: query, headers: headers, body: body)
    }

    /// `{"name": "exact"}` or `{"name": {"contains": "x"}}`, `{"present": true}`, ...
    func matchers(_ json: JSONValue?, _ path: String) -> [String: StringMatcher] {
        guard let json else { return [:] }
        guard case .object(let members) = json else {
            reader.problem(path, "expected an object of name → matcher, found \(json.typeName)")
            return [:]
        }
        var result: [String: StringMatcher] = [:]
        for (name, value) in members {
            let itemPath = "\(path).\(name)"
            if case .string(let exact) = value {
                result[name] = .equalTo(exact)
                continue
            }
            guard let spec = reader.object(value, itemPath, keys: ["equalTo", "equalToIgnoringCase", "contains", "prefix", "matches", "present", "absent"]) else { continue }
            guard spec.count == 1, let (kind, argument) = spec.first else {
                reader.problem(itemPath, "give exactly one matcher")
                continue
            }
            switch kind {
            case "present", "absent":
                guard argument == .bool(true) else {
                    reader.problem("\(itemPath).\(kind)", "must be true")
                    continue
                }
                result[name] = kind == "present" ? .present : .absent
            default:
                guard let text = reader.string(argument, "\(itemPath).\(kind)") else { continue }
                switch kind {
                case "equalTo": result[name] = .equalTo(text)
                case "equalToIgnoringCase": result[name] = .equalToIgnoringCase(text)
                case "contains": result[name] = .contains(text)
                case "prefix": result[name] = .hasPrefix(text)
                default:
                    // Compiled when it first meets a request; checked here without ICU
                    // where the pattern is plainly valid (`RegexSyntax`).
                    if !RegexSyntax.isPlainlyValid(text), (try? NSRegularExpression(pattern: text)) == nil {
                        reader.problem("\(itemPath).matches", "not a valid regular expression")
                    }
                    result[name] = .matches(text)
                }
            }
        }
        return result
    }
}

extension RequestPattern {
    /// A pattern written as in scenario files' `request` (method, path, query, headers, body),
    /// for the admin API's journal queries and verification.
    public static func parse(_ json: JSONValue, source: String = "request body", path: String = "$") throws(FixtureError) -> RequestPattern {
        let reader = JSONReader(file: source)
        let pattern = ScenarioParser(reader: reader).request(json, path)
        guard reader.problems.isEmpty, let pattern else {
            throw FixtureError(reader.problems.isEmpty ? [FixtureProblem(file: source, jsonPath: path, reason: "expected a request pattern object")] : reader.problems)
        }
        return pattern
    }
}

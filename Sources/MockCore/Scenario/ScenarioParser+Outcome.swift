import Foundation

extension ScenarioParser {
    static let outcomeKeys: Set<String> = ["simulator", "status", "headers", "json", "text", "base64", "bodyFile", "templated", "conditional",
                                           "transform", "latency", "throttle", "fault", "eventStream", "webSocket", "streamFault"]

    func outcome(_ json: JSONValue, _ path: String) -> Outcome? {
        guard let members = reader.object(json, path, keys: Self.outcomeKeys) else { return nil }
        let before = reader.problems.count
        var result = Outcome()
        let bodies = ["json", "text", "base64", "bodyFile"].filter { members[$0] != nil }
        let streams = ["eventStream", "webSocket"].filter { members[$0] != nil }
        if !streams.isEmpty {
            result.source = streamSource(members, streams: streams, bodies: bodies, path) ?? .simulator
        } else if members["simulator"] != nil {
            if members["simulator"] != .bool(true) { reader.problem("\(path).simulator", "must be true") }
            for key in ["status", "headers", "templated", "conditional"] + bodies where members[key] != nil {
                reader.problem("\(path).\(key)", "cannot be combined with \"simulator\": the simulator gives status, headers and body")
            }
        } else if let status = reader.integer(members["status"], "\(path).status", range: 100...599) {
            if bodies.count > 1 { reader.problem(path, "give only one body: \(bodies.joined(separator: ", "))") }
            var body = StubBody.empty
            if let value = members["json"] { body = .json(value) }
            if let text = reader.string(members["text"], "\(path).text") { body = .text(text) }
            if let encoded = reader.string(members["base64"], "\(path).base64") {
                if let data = Data(base64Encoded: encoded) { body = .bytes(data) } else { reader.problem("\(path).base64", "not valid base64") }
            }
            var headers = self.headers(members["headers"], "\(path).headers")
            if let name = reader.string(members["bodyFile"], "\(path).bodyFile"), let data = bodyFile(name, "\(path).bodyFile") {
                body = .bytes(data)
                if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
                    headers["Content-Type"] = Self.contentType(forFile: name)
                }
            }
            if flag(members["templated"], "\(path).templated") {
                body = template(body, headers: headers, path) ?? body
            }
            result.conditional = flag(members["conditional"], "\(path).conditional")
            result.source = .stub(status: status, headers: headers, body: body)
        } else if members["status"] == nil && members["fault"] == nil {
            reader.problem(path, "needs \"simulator\": true, a \"status\", an \"eventStream\", a \"webSocket\", or a \"fault\"")
        }
        if let transform = members["transform"] { result.transform = self.transform(transform, "\(path).transform") }
        result.latency = latency(members["latency"], "\(path).latency")
        result.throttle = throttle(members["throttle"], "\(path).throttle")
        result.fault = reader.choice(members["fault"], "\(path).fault", Dictionary(uniqueKeysWithValues: Fault.allCases.map { ($0.rawValue, $0) }))
        // (A stream with problems of its own has no source to check the fault against.)
        if let fault = members["streamFault"], streams.isEmpty || result.source != .simulator {
            result.streamFault = streamFault(fault, "\(path).streamFault", for: result.source)
        }
        return reader.problems.count == before ? result : nil
    }

    /// A stub's header fields: an object of name → value, each one a head can carry.
    func headers(_ json: JSONValue?, _ path: String) -> [String: String] {
        guard let json else { return [:] }
        guard case .object(let fields) = json else {
            reader.problem(path, "expected an object of header → value, found \(json.typeName)")
            return [:]
        }
        var headers: [String: String] = [:]
        for (name, value) in fields {
            guard let text = reader.string(value, "\(path).\(name)") else { continue }
            if let problem = HeaderFields.problem(name: name, value: text) {
                reader.problem("\(path).\(name)", problem)
            } else {
                headers[name] = text
            }
        }
        return headers
    }

    /// `body` as a template whose headers are templates too; nil, with the problem said at
    /// the body's or the header's path, when a hole is unknown or there is none at all.
    func template(_ body: StubBody, headers: [String: String], _ path: String) -> StubBody? {
        var holes = false
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            holes = template(value, readsMessage: false, "\(path).headers.\(name)").map(\.hasHoles) ?? false || holes
        }
        let key: String
        switch body {
        case .json: key = "json"
        case .text: key = "text"
        case .bytes: key = "base64"
        default: key = "templated"
        }
        guard let text = String(data: body.data, encoding: .utf8) else {
            reader.problem("\(path).\(key)", "a templated body is text")
            return nil
        }
        guard let template = template(text, readsMessage: false, "\(path).\(key)") else { return nil }
        if !template.hasHoles && !holes {
            reader.problem("\(path).templated", "neither the body nor a header has a {{…}} hole to fill in")
        }
        var json = false
        if case .json = body { json = true }
        if let type = headers.first(where: { $0.key.caseInsensitiveCompare("Content-Type") == .orderedSame })?.value {
            json = type.lowercased().contains("json")
        }
        return .template(template, json: json)
    }

    func flag(_ json: JSONValue?, _ path: String) -> Bool {
        guard let json else { return false }
        guard case .bool(let value) = json else {
            reader.problem(path, "expected true or false, found \(json.typeName)")
            return false
        }
        return value
    }

    /// A body read once, at load, from a path relative to the scenario file.
    func bodyFile(_ name: String, _ path: String) -> Data? {
        guard let directory else {
            reader.problem(path, "a body file works only in a scenario file (its path is relative to the file)")
            return nil
        }
        // Data only: a body file lives in the scenario file's folder (or below it), so a
        // shared scenario file cannot serve the machine's other files to whoever connects.
        let folder = Self.resolvedPath(directory)
        let url = directory.appendingPathComponent(name)
        guard !name.hasPrefix("/"), Self.resolvedPath(url).hasPrefix(folder.hasSuffix("/") ? folder : folder + "/") else {
            reader.problem(path, "\"\(name)\" is outside the scenario file's folder; body files must be inside it (a relative path without ..)")
            return nil
        }
        guard let data = try? Data(contentsOf: url) else {
            reader.problem(path, "cannot read \(directory.appendingPathComponent(name).standardizedFileURL.path)")
            return nil
        }
        return data
    }

    /// `url` with `..` removed and every symbolic link resolved, also when the file does
    /// not exist: its nearest existing folder is resolved and the rest appended. (Resolving
    /// a missing file's path resolves nothing on Linux, and on Apple platforms keeps the
    /// `/private` that its existing folder loses, so a missing body file read as "outside".)
    static func resolvedPath(_ url: URL) -> String {
        var existing = url.standardizedFileURL
        var missing: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path) && existing.pathComponents.count > 1 {
            missing.insert(existing.lastPathComponent, at: 0)
            existing = existing.deletingLastPathComponent()
        }
        var resolved = existing.resolvingSymlinksInPath()
        for component in missing { resolved.appendPathComponent(component) }
        return resolved.path
    }

    static func contentType(forFile name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "json": return "application/json; charset=utf-8"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "html", "htm": return "text/html; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    func transform(_ json: JSONValue, _ path: String) -> BodyTransform? {
        if case .string = json {
            return reader.choice(json, path, ["malformedJSON": BodyTransform.malformedJSON, "wrongShape": .wrongShape, "emptyBody": .emptyBody,
                                        "emptyLists": .emptyLists])
        }
        guard let members = reader.object(json, path, keys: ["repeatItems"]) else { return nil }
        return reader.integer(members["repeatItems"], "\(path).repeatItems", required: true, range: 1...10_000).map(BodyTransform.repeatItems)
    }

    /// Milliseconds in files; seconds in values.
    func latency(_ json: JSONValue?, _ path: String) -> Latency? {
        guard let members = reader.object(json, path, keys: ["fixed", "uniform", "lognormal"]) else { return nil }
        guard members.count == 1 else {
            reader.problem(path, "give exactly one of fixed, uniform, lognormal")
            return nil
        }
        let ms = 0...3_600_000.0
        if let fixed = members["fixed"] {
            return reader.number(fixed, "\(path).fixed", range: ms).map { .fixed($0 / 1000) }
        }
        if let uniform = reader.object(members["uniform"], "\(path).uniform", keys: ["min", "max"]) {
            guard let low = reader.number(uniform["min"], "\(path).uniform.min", required: true, range: ms),
                  let high = reader.number(uniform["max"], "\(path).uniform.max", required: true, range: ms) else { return nil }
            guard low <= high else {
                reader.problem("\(path).uniform", "min (\(JSONReader.show(low))) must not exceed max (\(JSONReader.show(high)))")
                return nil
            }
            return .uniform(min: low / 1000, max: high / 1000)
        }
        if let lognormal = reader.object(members["lognormal"], "\(path).lognormal", keys: ["median", "sigma"]) {
            guard let median = reader.number(lognormal["median"], "\(path).lognormal.median", required: true, range: ms),
                  let sigma = reader.number(lognormal["sigma"], "\(path).lognormal.sigma", required: true, range: 0...5) else { return nil }
            return .lognormal(median: median / 1000, sigma: sigma)
        }
        return nil
    }

    func throttle(_ json: JSONValue?, _ path: String) -> Throttle? {
        guard let members = reader.object(json, path, keys: ["bytesPerSecond", "chunkSize", "dribble"]) else { return nil }
        if let rate = members["bytesPerSecond"] {
            if members["dribble"] != nil { reader.problem(path, "give bytesPerSecond or dribble, not both") }
            guard let bytes = reader.integer(rate, "\(path).bytesPerSecond", range: 1...1_000_000_000) else { return nil }
            let chunk = reader.integer(members["chunkSize"], "\(path).chunkSize", range: 1...1_048_576) ?? min(1024, bytes)
            return .bytesPerSecond(bytes, chunkSize: chunk)
        }
        if let dribble = reader.object(members["dribble"], "\(path).dribble", keys: ["duration", "chunks"]) {
            if members["chunkSize"] != nil { reader.problem("\(path).chunkSize", "goes with bytesPerSecond only") }
            guard let duration = reader.number(dribble["duration"], "\(path).dribble.duration", required: true, range: 0...3_600_000),
                  let chunks = reader.integer(dribble["chunks"], "\(path).dribble.chunks", required: true, range: 1...100_000) else { return nil }
            return .dribble(duration: duration / 1000, chunks: chunks)
        }
        reader.problem(path, "needs bytesPerSecond or dribble")
        return nil
    }
}

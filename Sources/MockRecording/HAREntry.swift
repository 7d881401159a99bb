import Foundation
import MockCore

/// One HAR entry as read, checked field by field: every problem is reported on the reader
/// with the entry's JSON path (`$.log.entries[3].response.content.text`).
struct HAREntry: Sendable {
    let index: Int
    let method: String
    let url: HARURL
    var requestHeaders: HeaderFields
    var requestBody: Data
    var requestContentType: String?
    let status: Int
    var responseHeaders: HeaderFields
    var body: Data
    /// `response.content.mimeType`, when the entry gives a non-empty one.
    var mimeType: String?
    var redirectURL: String?
    /// Milliseconds (`--keep-timing`); nil when the entry has no timing.
    var latency: Double?
    var startedDateTime: String?
    /// The entry says the response had a body (`content.size` > 0) but holds no `text`.
    var bodyLeftOut: Bool

    enum Reading {
        case entry(HAREntry)
        /// Not an HTTP exchange to replay; the reason says why.
        case skipped(String)
        /// Its problems are on the reader.
        case invalid
    }

    static func read(_ json: JSONValue, index: Int, keepTiming: Bool, reader: JSONReader) -> Reading {
        let path = "$.log.entries[\(index)]"
        let before = reader.problems.count
        guard let entry = reader.openObject(json, path) else { return .invalid }
        if let cache = entry["_fromCache"], cache != .null {
            return .skipped("answered from the browser's cache (_fromCache), never sent")
        }
        if let fetch = entry["_fetchType"]?.stringValue, fetch.lowercased().contains("cache") {
            return .skipped("answered from the browser's cache (_fetchType \(fetch)), never sent")
        }
        var skip: String?

        let request = reader.openObject(entry["request"], "\(path).request", required: true)
        var method = "GET", url = HARURL(scheme: "http", host: "", port: nil, target: "/")
        var requestHeaders = HeaderFields(), requestBody = Data(), requestContentType: String?
        if let request {
            if let text = reader.string(request["method"], "\(path).request.method", required: true) {
                if text.isEmpty || !text.utf8.allSatisfy(isTokenByte) {
                    reader.problem("\(path).request.method", "\"\(text)\" is not an HTTP method")
                }
                method = text.uppercased()
            }
            if let text = reader.string(request["url"], "\(path).request.url", required: true) {
                switch HARURL.read(text) {
                case .url(let parsed): url = parsed
                case .notHTTP(let scheme): skip = "a \(scheme): URL, not HTTP"
                case .invalid(let reason): reader.problem("\(path).request.url", reason)
                }
            }
            requestHeaders = headers(request["headers"], "\(path).request.headers", checked: false, reader: reader)
            if let post = reader.openObject(request["postData"], "\(path).request.postData") {
                requestBody = content(post, "\(path).request.postData", reader: reader) ?? Data()
                requestContentType = reader.string(post["mimeType"], "\(path).request.postData.mimeType").flatMap { $0.isEmpty ? nil : $0 }
            }
        }

        let response = reader.openObject(entry["response"], "\(path).response", required: true)
        var status = 200, responseHeaders = HeaderFields(), body = Data(), mimeType: String?, redirectURL: String?, bodyLeftOut = false
        if let response {
            if let number = reader.integer(response["status"], "\(path).response.status", required: true) {
                status = number
                if number == 0 {
                    skip = skip ?? "no response (status 0: the request failed, was blocked or was cancelled)"
                } else if !(100...599).contains(number) {
                    reader.problem("\(path).response.status", "must be between 100 and 599, found \(number)")
                } else if number < 200 {
                    skip = skip ?? "an interim response (\(number)), not an answer"
                }
            }
            responseHeaders = headers(response["headers"], "\(path).response.headers", checked: true, reader: reader)
            if let content = reader.openObject(response["content"], "\(path).response.content") {
                body = self.content(content, "\(path).response.content", reader: reader) ?? Data()
                mimeType = reader.string(content["mimeType"], "\(path).response.content.mimeType").flatMap { $0.isEmpty ? nil : $0 }
                bodyLeftOut = content["text"] == nil && (content["size"]?.doubleValue ?? 0) > 0
                if let type = mimeType, let problem = HeaderFields.problem(name: "Content-Type", value: type) {
                    reader.problem("\(path).response.content.mimeType", problem)
                }
            }
            redirectURL = reader.string(response["redirectURL"], "\(path).response.redirectURL").flatMap { $0.isEmpty ? nil : $0 }
            if let location = redirectURL, let problem = HeaderFields.problem(name: "Location", value: location) {
                reader.problem("\(path).response.redirectURL", problem)
            }
        }
        let latency = keepTiming ? timing(entry, path, reader: reader) : nil
        let started = reader.string(entry["startedDateTime"], "\(path).startedDateTime")

        guard reader.problems.count == before else { return .invalid }
        if let skip { return .skipped(skip) }
        return .entry(HAREntry(index: index, method: method, url: url, requestHeaders: requestHeaders, requestBody: requestBody,
                               requestContentType: requestContentType, status: status, responseHeaders: responseHeaders, body: body,
                               mimeType: mimeType, redirectURL: redirectURL, latency: latency, startedDateTime: started,
                               bodyLeftOut: bodyLeftOut))
    }

    /// `[{"name": …, "value": …}]`; HTTP/2 pseudo-headers (`:status`) are left out. Headers
    /// that will be written (`checked`) must be valid on the wire.
    static func headers(_ json: JSONValue?, _ path: String, checked: Bool, reader: JSONReader) -> HeaderFields {
        var fields = HeaderFields()
        for (index, element) in (reader.array(json, path) ?? []).enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let members = reader.openObject(element, itemPath),
                  let name = reader.string(members["name"], "\(itemPath).name", required: true),
                  let value = reader.string(members["value"], "\(itemPath).value", required: true) else { continue }
            if name.hasPrefix(":") { continue }
            if checked, let problem = HeaderFields.problem(name: name, value: value) {
                reader.problem(itemPath, problem)
                continue
            }
            fields.add(name, value)
        }
        return fields
    }

    /// The bytes of a `content` or `postData` object: `text`, decoded when `encoding` is
    /// base64; text as UTF-8 unless a Latin-1 charset is declared. Nil without `text`.
    static func content(_ members: [String: JSONValue], _ path: String, reader: JSONReader) -> Data? {
        guard let text = reader.string(members["text"], "\(path).text") else { return nil }
        switch reader.string(members["encoding"], "\(path).encoding")?.lowercased() {
        case nil, "":
            let charset = (members["mimeType"]?.stringValue).flatMap(Self.charset)
            if let charset, ["iso-8859-1", "latin1", "latin-1", "windows-1252", "cp1252"].contains(charset),
               let latin = text.data(using: charset.contains("1252") ? .windowsCP1252 : .isoLatin1) {
                return latin
            }
            return Data(text.utf8)
        case "base64":
            let compact = text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact) else {
                reader.problem("\(path).text", "base64 that does not decode")
                return nil
            }
            return data
        case let other?:
            reader.problem("\(path).encoding", "unknown encoding \"\(other)\"; HAR knows only \"base64\"")
            return nil
        }
    }

    static func charset(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" { return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased() }
        }
        return nil
    }

    /// `timings.wait + timings.receive` (the server's think time and the body's transfer;
    /// -1 means not measured), else `time` (the whole exchange, connection set-up included).
    static func timing(_ entry: [String: JSONValue], _ path: String, reader: JSONReader) -> Double? {
        func duration(_ json: JSONValue?, _ path: String) -> Double? {
            guard let value = reader.number(json, path) else { return nil }
            if value == -1 { return nil }
            guard value >= 0 else {
                reader.problem(path, "a negative duration, \(JSONReader.show(value)) ms (HAR writes -1 for not measured)")
                return nil
            }
            return value
        }
        var total: Double?
        var totalPath = "\(path).time"
        if let timings = reader.openObject(entry["timings"], "\(path).timings") {
            let wait = duration(timings["wait"], "\(path).timings.wait")
            let receive = duration(timings["receive"], "\(path).timings.receive")
            if let wait {
                total = wait + (receive ?? 0)
                totalPath = "\(path).timings.wait"
            }
        }
        if total == nil { total = duration(entry["time"], "\(path).time") }
        if let total, total > 3_600_000 {
            reader.problem(totalPath, "\(JSONReader.show(total)) ms is longer than a scenario's latency can be (3600000 ms)")
            return nil
        }
        return total
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

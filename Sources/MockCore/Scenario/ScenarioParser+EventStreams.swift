import Foundation

/// Scenario files' `eventStream`: server-sent events, their repetition and IDs. Delays are
/// milliseconds in files, seconds in values.
extension ScenarioParser {
    func eventStream(_ json: JSONValue, _ path: String, templated: Bool, holes: inout Bool) -> EventStream? {
        guard let members = reader.object(json, path, keys: ["events", "repeat", "autoIds", "keepOpen"]) else { return nil }
        guard let list = reader.array(members["events"], "\(path).events", required: true) else { return nil }
        if list.isEmpty { reader.problem("\(path).events", "must not be empty") }
        if list.count > 10_000 { reader.problem("\(path).events", "at most 10000 events, found \(list.count)") }
        var events: [ServerSentEvent] = []
        for (index, element) in list.enumerated() {
            if let event = serverSentEvent(element, "\(path).events[\(index)]", templated: templated, holes: &holes) { events.append(event) }
        }
        var repetition = EventStream.Repetition.once
        if let given = members["repeat"] {
            if case .string(let text) = given {
                if text == "forever" { repetition = .forever } else { reader.problem("\(path).repeat", "a number of times, or \"forever\"; found \"\(text)\"") }
            } else if let times = reader.integer(given, "\(path).repeat", range: 1...1_000_000) {
                repetition = times == 1 ? .once : .times(times)
            }
        }
        let keepOpen = flag(members["keepOpen"], "\(path).keepOpen")
        let stream = EventStream(events, repetition: repetition, autoIDs: flag(members["autoIds"], "\(path).autoIds"), keepOpen: keepOpen)
        if repetition == .forever {
            if keepOpen { reader.problem("\(path).keepOpen", "a stream without end never reaches an end to stay open at") }
            if events.count == list.count, stream.roundDuration == 0 {
                reader.problem("\(path).repeat", "a stream without end needs a delay in its events, or it would write without end at once")
            }
        }
        return events.count == list.count && !list.isEmpty ? stream : nil
    }

    func serverSentEvent(_ json: JSONValue, _ path: String, templated: Bool, holes: inout Bool) -> ServerSentEvent? {
        guard let members = reader.object(json, path, keys: ["event", "data", "json", "id", "retry", "comment", "delay"]) else { return nil }
        let before = reader.problems.count
        if members["data"] != nil, members["json"] != nil { reader.problem(path, "give data (text) or json, not both") }
        if ["data", "json", "comment", "id", "retry"].allSatisfy({ members[$0] == nil }) {
            reader.problem(path, "an event needs data, json, a comment, an id or retry")
        }
        var event = ServerSentEvent()
        if let name = reader.string(members["event"], "\(path).event") {
            if let problem = ServerSentEvent.fieldProblem(name) { reader.problem("\(path).event", problem) }
            event.event = name
        }
        if let id = members["id"] {
            var text: String?
            if case .number = id { text = reader.integer(id, "\(path).id", range: 0...Int.max).map(String.init) } else { text = reader.string(id, "\(path).id") }
            if let text, let problem = ServerSentEvent.fieldProblem(text) { reader.problem("\(path).id", problem) }
            event.id = text
        }
        event.retry = reader.integer(members["retry"], "\(path).retry", range: 0...86_400_000)
        event.comment = reader.string(members["comment"], "\(path).comment")
        event.delay = (reader.number(members["delay"], "\(path).delay", range: 0...3_600_000) ?? 0) / 1000
        if let text = reader.string(members["data"], "\(path).data") {
            event.data = .text(text)
            if templated, let template = template(text, readsMessage: false, "\(path).data") {
                event.data = .template(template, json: false)
                holes = holes || template.hasHoles
            }
        }
        if let value = members["json"] {
            event.data = .json(value)
            if templated, let template = template(ServerSentEvent.Payload.json(value).content, readsMessage: false, "\(path).json") {
                event.data = .template(template, json: true)
                holes = holes || template.hasHoles
            }
        }
        return reader.problems.count == before ? event : nil
    }
}

import Foundation
import MockCore
import MockRecording
import Testing

/// Every kind of bad capture is refused with the entry and the field as a JSON path
/// (the CLI's exit status and "nothing written" are in CLITests).
@Suite struct HARImportErrorTests {
    /// An entry that imports; the cases below break one field of it.
    static let good = #"{"request":{"method":"GET","url":"http://localhost:8080/menu","headers":[]},"response":{"status":200,"headers":[{"name":"Content-Type","value":"application/json"}],"content":{"mimeType":"application/json","text":"{}"}},"time":3,"timings":{"wait":2,"receive":1}}"#

    static func capture(_ entries: String...) -> String { #"{"log":{"version":"1.2","entries":["# + entries.joined(separator: ",") + "]}}" }
    static func replacing(_ old: String, _ new: String) -> String { good.replacingOccurrences(of: old, with: new) }

    static let cases: [(har: String, problem: String)] = [
        (#"{"log": {"entries": [}"#, "$: not valid JSON: unexpected character at line 1, column 22"),
        ("", "$: not valid JSON: unexpected end of input at line 1, column 1"),
        ("[]", "$: expected an object, found an array"),
        ("{}", "$.log: required key is missing"),
        (#"{"log": []}"#, "$.log: expected an object, found an array"),
        (#"{"log": {}}"#, "$.log.entries: required key is missing"),
        (#"{"log": {"entries": {}}}"#, "$.log.entries: expected an array, found an object"),
        (#"{"log": {"entries": []}}"#, "$.log.entries: the capture has no entries"),
        (capture(good, "7"), "$.log.entries[1]: expected an object, found a number"),
        (capture(#"{"response": {"status": 200}}"#), "$.log.entries[0].request: required key is missing"),
        (capture(#"{"request": {"method": "GET", "url": "http://h/"}}"#), "$.log.entries[0].response: required key is missing"),
        (capture(replacing(#""method":"GET","#, "")), "$.log.entries[0].request.method: required key is missing"),
        (capture(replacing(#""method":"GET""#, #""method":"GE T""#)), #"$.log.entries[0].request.method: "GE T" is not an HTTP method"#),
        (capture(replacing(#""method":"GET""#, #""method":1"#)), "$.log.entries[0].request.method: expected a string, found a number"),
        (capture(replacing(#""url":"http://localhost:8080/menu","#, "")), "$.log.entries[0].request.url: required key is missing"),
        (capture(replacing("http://localhost:8080/menu", "/menu")), #"$.log.entries[0].request.url: "/menu" is not an absolute URL (http://host/path)"#),
        (capture(replacing("http://localhost:8080/menu", "http:/menu")), #"$.log.entries[0].request.url: "http:/menu" has no host (expected http://host/path)"#),
        (capture(replacing("http://localhost:8080/menu", "http:///menu")), #"$.log.entries[0].request.url: "http:///menu" has no host"#),
        (capture(replacing("localhost:8080", "localhost:99999")),
         #"$.log.entries[0].request.url: "http://localhost:99999/menu" has a port that is not a number from 1 to 65535"#),
        (capture(replacing("localhost:8080", "local host")),
         #"$.log.entries[0].request.url: "http://local host/menu" has a host that is not a plain host name or address"#),
        (capture(replacing("/menu", "/my menu")),
         #"$.log.entries[0].request.url: "http://localhost:8080/my menu" holds a space, which a request target cannot hold (browsers write %20)"#),
        (capture(replacing(#""status":200"#, #""status":"200""#)), "$.log.entries[0].response.status: expected a number, found a string"),
        (capture(replacing(#""status":200,"#, "")), "$.log.entries[0].response.status: required key is missing"),
        (capture(replacing(#""status":200"#, #""status":700"#)), "$.log.entries[0].response.status: must be between 100 and 599, found 700"),
        (capture(replacing(#""status":200"#, #""status":200.5"#)), "$.log.entries[0].response.status: expected a whole number, found 200.5"),
        (capture(good, good, good, replacing(#""text":"{}""#, #""text":"iVBOR*w0K","encoding":"base64""#)),
         "$.log.entries[3].response.content.text: base64 that does not decode"),
        (capture(replacing(#""text":"{}""#, #""text":"H4sI","encoding":"gzip""#)),
         #"$.log.entries[0].response.content.encoding: unknown encoding "gzip"; HAR knows only "base64""#),
        (capture(replacing(#""text":"{}""#, #""text":{}"#)), "$.log.entries[0].response.content.text: expected a string, found an object"),
        (capture(replacing(#""content":{"mimeType":"application/json","text":"{}"}"#, #""content":"{}""#)),
         "$.log.entries[0].response.content: expected an object, found a string"),
        (capture(replacing(#""headers":[{"name":"Content-Type""#, #""headers":[{"nom":"Content-Type""#)),
         "$.log.entries[0].response.headers[0].name: required key is missing"),
        (capture(replacing(#""value":"application/json""#, #""value":"application/json\r\nX-Evil: 1""#)),
         "$.log.entries[0].response.headers[0]: the value of Content-Type holds a carriage return, which would break the response's head"),
        (capture(replacing(#""headers":[]"#, #""headers":{}"#)), "$.log.entries[0].request.headers: expected an array, found an object"),
        (capture(replacing(#""url":"http://localhost:8080/menu","#, #""url":"http://localhost:8080/menu","postData":{"text":"e30=","encoding":"base64!"},"#)),
         #"$.log.entries[0].request.postData.encoding: unknown encoding "base64!"; HAR knows only "base64""#),
    ]

    @Test(arguments: cases)
    func badCaptureNamesItsPath(har: String, problem: String) {
        do {
            _ = try HARImport.read(Data(har.utf8), file: "bad.har")
            Issue.record("imported: \(har)")
        } catch {
            #expect(error.description == "bad.har: \(problem)")
        }
    }

    /// Timings are read (and checked) only with --keep-timing.
    @Test func timingsAreCheckedOnlyWhenKept() throws {
        let har = Self.capture(Self.replacing(#""wait":2"#, #""wait":-5"#), Self.replacing(#""time":3"#, #""time":"slow""#).replacingOccurrences(of: #""wait":2"#, with: #""wait":-1"#))
        #expect(try HARImport.read(Data(har.utf8), file: "t.har").exchanges.count == 2)
        do {
            _ = try HARImport.read(Data(har.utf8), file: "t.har", options: .init(keepTiming: true))
            Issue.record("negative timings imported")
        } catch {
            #expect(error.problems.map(\.description) == [
                "t.har: $.log.entries[0].timings.wait: a negative duration, -5 ms (HAR writes -1 for not measured)",
                "t.har: $.log.entries[1].time: expected a number, found a string",
            ])
        }
        let long = Self.capture(Self.replacing(#""wait":2"#, #""wait":3600001"#))
        #expect(throws: FixtureError.self) { try HARImport.read(Data(long.utf8), file: "t.har", options: .init(keepTiming: true)) }
    }

    /// Every problem at once, not only the first.
    @Test func everyProblemIsReported() {
        let har = Self.capture(Self.replacing(#""method":"GET""#, #""method":"G T""#), Self.good,
                               Self.replacing(#""status":200"#, #""status":"x""#).replacingOccurrences(of: "http://localhost:8080/menu", with: "ftp"))
        do {
            _ = try HARImport.read(Data(har.utf8), file: "b.har")
            Issue.record("imported")
        } catch {
            #expect(error.problems.map(\.jsonPath) == ["$.log.entries[0].request.method", "$.log.entries[2].request.url", "$.log.entries[2].response.status"])
        }
    }

    /// Not an exchange to replay: left out with a note, not refused.
    @Test func answerlessEntriesAreLeftOutWithANote() throws {
        let har = Self.capture(Self.good, Self.replacing(#""status":200"#, #""status":0"#), Self.replacing(#""status":200"#, #""status":101"#),
                               Self.replacing("http://localhost:8080/menu", "blob:http://localhost:8080/1"),
                               Self.good.replacingOccurrences(of: #""time":3"#, with: #""time":3,"_fromCache":"memory""#))
        let capture = try HARImport.read(Data(har.utf8), file: "n.har")
        #expect(capture.exchanges.count == 1)
        #expect(capture.notes == [
            "$.log.entries[1]: left out: no response (status 0: the request failed, was blocked or was cancelled)",
            "$.log.entries[2]: left out: an interim response (101), not an answer",
            "$.log.entries[3]: left out: a blob: URL, not HTTP",
            "$.log.entries[4]: left out: answered from the browser's cache (_fromCache), never sent",
        ])
        let none = Self.capture(Self.replacing(#""status":200"#, #""status":0"#))
        do {
            _ = try HARImport.read(Data(none.utf8), file: "n.har")
            Issue.record("imported")
        } catch {
            #expect(error.description == "n.har: $.log.entries: no entry is an HTTP exchange to replay ([0]: no response (status 0: the request failed, was blocked or was cancelled))")
        }
    }
}

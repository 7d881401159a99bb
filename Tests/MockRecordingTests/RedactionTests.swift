import Foundation
import MockCore
@testable import MockRecording
import Testing

/// The pieces of the HAR import on their own: redaction in place, request URLs, the
/// capture's address in bodies.
@Suite struct RedactionTests {
    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func jsonIsRedactedInPlaceKeepingEverythingElse() {
        let body = "{\n  \"user\" : {\"Password\":\"p\\\"w\", \"age\": 1.0},\n  \"items\": [{\"secret\": 42}, {\"secret\": null}],\n  \"identifier\": {\"nested\": true}\n}"
        let (redacted, names) = Redaction.json(Data(body.utf8))
        #expect(Self.text(redacted) == "{\n  \"user\" : {\"Password\":\"REDACTED\", \"age\": 1.0},\n  \"items\": [{\"secret\": \"REDACTED\"}, {\"secret\": null}],\n  \"identifier\": \"REDACTED\"\n}")
        #expect(names == ["Password", "secret", "identifier"])
        let plain = Data(#"{"name":"x","secrets":["a"]}"#.utf8)
        #expect(Redaction.json(plain).0 == plain)
    }

    @Test func formsAndMultipartPartsAreRedacted() throws {
        let (form, names) = try #require(Redaction.body(Data("a=1&password=hunter2&b=%20".utf8), contentType: "application/x-www-form-urlencoded"))
        #expect(Self.text(form) == "a=1&password=REDACTED&b=%20" && names == ["password"])

        let parts = "--B\r\nContent-Disposition: form-data; name=\"identifier\"\r\n\r\nvendor-1\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"params\"\r\n\r\n{\"secret\":\"pw\",\"name\":\"pw\"}\r\n--B--\r\n"
        let (multipart, found) = try #require(Redaction.body(Data(parts.utf8), contentType: "multipart/form-data; boundary=B"))
        #expect(Self.text(multipart) == parts.replacingOccurrences(of: "vendor-1", with: "REDACTED")
                    .replacingOccurrences(of: #"{"secret":"pw""#, with: #"{"secret":"REDACTED""#))
        #expect(found == ["identifier", "secret"])
        // A multipart body that does not parse cannot be searched: nil, and the import drops it.
        #expect(Redaction.body(Data("--B\r\nbroken".utf8), contentType: "multipart/form-data; boundary=B") == nil)
        let (headers, redacted) = Redaction.headers(["AUTHORIZATION": "Bearer x", "Accept": "*/*", "set-cookie": "a=b"])
        #expect(headers["Authorization"] == "REDACTED" && headers["Accept"] == "*/*" && redacted == ["Authorization", "Set-Cookie"])
    }

    static let urls: [(String, HARURL.Reading)] = [
        ("http://localhost:8080/menu?category=soups#top", .url(HARURL(scheme: "http", host: "localhost", port: 8080, target: "/menu?category=soups"))),
        ("HTTPS://User:pw@API.Example.com", .url(HARURL(scheme: "https", host: "api.example.com", port: nil, target: "/"))),
        ("http://[::1]:8080?x=1", .url(HARURL(scheme: "http", host: "[::1]", port: 8080, target: "/?x=1"))),
        ("data:image/png;base64,AA==", .notHTTP(scheme: "data")),
        ("wss://h/socket", .notHTTP(scheme: "wss")),
        ("http://h:0/", .invalid(reason: #""http://h:0/" has a port that is not a number from 1 to 65535"#)),
        ("http://[::1/", .invalid(reason: #""http://[::1/" has an IPv6 host without its closing "]""#)),
    ]

    @Test(arguments: urls)
    func requestURLs(text: String, reading: HARURL.Reading) {
        #expect(HARURL.read(text) == reading)
    }

    @Test func hostKeysShowOnlyPortsThatAreNotTheDefault() throws {
        guard case .url(let https) = HARURL.read("https://a.example:443/x"), case .url(let custom) = HARURL.read("http://a.example:8080/x") else {
            Issue.record("not read")
            return
        }
        #expect(https.hostKey == "a.example" && https.isNamed(by: "a.example") && https.isNamed(by: "A.example:443"))
        #expect(custom.hostKey == "a.example:8080" && !custom.isNamed(by: "a.example"))
        #expect(https.origins == ["https://a.example", "https://a.example:443"])
    }

    @Test func theCapturesAddressIsReplacedOnlyWhereItEnds() {
        let origins = ["http://h:80", "http://h"]
        #expect(HARText.templating(#"{"a":"http://h/1","b":"http://h:8080/2","c":"http://h:80","d":"http://hx/","e":"http:\/\/h\/3"}"#, origins: origins)
                    == #"{"a":"{{baseURL}}/1","b":"http://h:8080/2","c":"{{baseURL}}","d":"http://hx/","e":"{{baseURL}}\/3"}"#)
        #expect(HARText.templating("nothing here", origins: origins) == nil)
    }
}

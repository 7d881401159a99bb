import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a client sees, by platform: the URLError of each fault and TLS fault over sockets
/// and in process, where each redirect leads, and whether a task-local bound in XCTest's
/// `invokeTest()` reaches the async parts of a test. `ObservedBehaviourTests` observes
/// each row on the platform it runs on and fails where this table disagrees; with
/// `MOCK_SERVER_OBSERVED_DIR` set it also writes what it saw there, a line of tab-separated
/// fields per row, which the macOS CI jobs print and upload.
///
/// The Linux column is observed (Swift 6.3, FoundationNetworking over libcurl). The Apple
/// column is `.expected` until a macOS run has been seen: it is taken from Apple's
/// documentation of URLError and URLSession and from the in-process transport's own
/// mapping (`InProcessExchange.error(for:)`); a row becomes `.observed` only from a run's
/// observations.
struct ClientBehaviour: Sendable {
    enum Source: Sendable, Equatable {
        /// From documentation, not yet seen on the platform.
        case expected(String)
        /// Seen in a run (which one).
        case observed(String)
    }

    let area: String
    let name: String
    let transport: String
    let linux: String
    let apple: String
    let appleSource: Source

    /// This platform's figure and where it comes from.
    var here: (figure: String, source: String) {
        #if canImport(FoundationNetworking)
        return (linux, "observed on Linux")
        #else
        switch appleSource {
        case .expected(let from): return (apple, "expected, not yet observed: \(from)")
        case .observed(let run): return (apple, "observed: \(run)")
        }
        #endif
    }

    var testDescription: String { "\(area) \(name) (\(transport))" }
}

extension ClientBehaviour {
    static let sockets = "sockets"
    static let inProcess = "in process"

    private static let urlErrorDocs = "Apple's URLError.Code documentation and the Faults article"
    private static let inProcessMapping = "InProcessExchange.error(for:), which MockURLProtocol reports on every platform"
    private static let tlsDocs = "the HTTPS article's table: LocalCATrust hands a failed evaluation to the system's own handling"
    private static let redirectDocs = "URLSession's redirect rules (RFC 9110: 303 to GET; 307 keeps the method and body)"

    /// Every row, in the order the printed table sorts them (area, case, transport).
    static let table: [ClientBehaviour] = faults + tls + redirects + xctest

    static let faults: [ClientBehaviour] = [
        ClientBehaviour(area: "fault", name: "connectionReset", transport: sockets,
                        linux: "URLError -1005 networkConnectionLost", apple: "URLError -1005 networkConnectionLost",
                        appleSource: .expected(urlErrorDocs)),
        ClientBehaviour(area: "fault", name: "connectionReset", transport: inProcess,
                        linux: "URLError -1005 networkConnectionLost", apple: "URLError -1005 networkConnectionLost",
                        appleSource: .expected(inProcessMapping)),
        ClientBehaviour(area: "fault", name: "emptyResponse", transport: sockets,
                        linux: "URLError -1011 badServerResponse", apple: "URLError -1005 networkConnectionLost",
                        appleSource: .expected(urlErrorDocs + " (or -1011 badServerResponse)")),
        ClientBehaviour(area: "fault", name: "emptyResponse", transport: inProcess,
                        linux: "URLError -1005 networkConnectionLost", apple: "URLError -1005 networkConnectionLost",
                        appleSource: .expected(inProcessMapping)),
        ClientBehaviour(area: "fault", name: "malformedChunk", transport: sockets,
                        linux: "URLError -1 unknown", apple: "URLError -1017 cannotParseResponse",
                        appleSource: .expected(urlErrorDocs)),
        ClientBehaviour(area: "fault", name: "malformedChunk", transport: inProcess,
                        linux: "URLError -1017 cannotParseResponse", apple: "URLError -1017 cannotParseResponse",
                        appleSource: .expected(inProcessMapping)),
        ClientBehaviour(area: "fault", name: "randomDataThenClose", transport: sockets,
                        linux: "URLError -1002 unsupportedURL", apple: "URLError -1017 cannotParseResponse",
                        appleSource: .expected(urlErrorDocs)),
        ClientBehaviour(area: "fault", name: "randomDataThenClose", transport: inProcess,
                        linux: "URLError -1017 cannotParseResponse", apple: "URLError -1017 cannotParseResponse",
                        appleSource: .expected(inProcessMapping)),
        ClientBehaviour(area: "fault", name: "truncatedBody", transport: sockets,
                        linux: "URLError -1 unknown", apple: "URLError -1005 networkConnectionLost",
                        appleSource: .expected(urlErrorDocs)),
        ClientBehaviour(area: "fault", name: "truncatedBody", transport: inProcess,
                        linux: "URLError -1005 networkConnectionLost", apple: "URLError -1005 networkConnectionLost",
                        appleSource: .expected(inProcessMapping)),
        ClientBehaviour(area: "fault", name: "hang", transport: sockets,
                        linux: "URLError -1001 timedOut", apple: "URLError -1001 timedOut",
                        appleSource: .expected(urlErrorDocs)),
        ClientBehaviour(area: "fault", name: "hang", transport: inProcess,
                        linux: "URLError -1001 timedOut", apple: "URLError -1001 timedOut",
                        appleSource: .expected(inProcessMapping)),
    ]

    static let tls: [ClientBehaviour] = [
        ClientBehaviour(area: "tls", name: "tls-untrusted-certificate", transport: sockets,
                        linux: "URLError -1 unknown", apple: "URLError -1202 serverCertificateUntrusted",
                        appleSource: .expected(tlsDocs)),
        ClientBehaviour(area: "tls", name: "tls-expired-certificate", transport: sockets,
                        linux: "URLError -1 unknown", apple: "URLError -1201 serverCertificateHasBadDate",
                        appleSource: .expected(tlsDocs + " (-1202 serverCertificateUntrusted if the trust evaluation reports no date)")),
        ClientBehaviour(area: "tls", name: "tls-wrong-host", transport: sockets,
                        linux: "URLError -1 unknown", apple: "URLError -1202 serverCertificateUntrusted",
                        appleSource: .expected(tlsDocs)),
        ClientBehaviour(area: "tls", name: "tls-handshake-reset", transport: sockets,
                        linux: "URLError -1 unknown", apple: "URLError -1200 secureConnectionFailed",
                        appleSource: .expected(tlsDocs + " (-1005 networkConnectionLost if CFNetwork reports the reset itself)")),
        ClientBehaviour(area: "tls", name: "tls-slow-handshake", transport: sockets,
                        linux: "URLError -1001 timedOut", apple: "URLError -1001 timedOut",
                        appleSource: .expected(tlsDocs)),
    ]

    static let redirects: [ClientBehaviour] = [
        ClientBehaviour(area: "redirect", name: "302 after GET", transport: sockets,
                        linux: "200; then GET /menu", apple: "200; then GET /menu", appleSource: .expected(redirectDocs)),
        ClientBehaviour(area: "redirect", name: "302 after GET", transport: inProcess,
                        linux: "200; then GET /menu", apple: "200; then GET /menu", appleSource: .expected(redirectDocs)),
        ClientBehaviour(area: "redirect", name: "303 after POST", transport: sockets,
                        linux: "200; then GET /categories without a body", apple: "200; then GET /categories without a body",
                        appleSource: .expected(redirectDocs)),
        ClientBehaviour(area: "redirect", name: "303 after POST", transport: inProcess,
                        linux: "200; then GET /categories without a body", apple: "200; then GET /categories without a body",
                        appleSource: .expected(redirectDocs)),
        ClientBehaviour(area: "redirect", name: "307 after POST", transport: sockets,
                        linux: "400; then POST /order without a body", apple: "200; then POST /order with the body",
                        appleSource: .expected(redirectDocs)),
        ClientBehaviour(area: "redirect", name: "307 after POST", transport: inProcess,
                        linux: "400; then POST /order without a body", apple: "200; then POST /order with the body",
                        appleSource: .expected(redirectDocs)),
    ]

    private static let xctestDocs = "Task-local inheritance (SE-0311): XCTest starts an async test's task inside invokeTest()"

    static let xctest: [ClientBehaviour] = [
        ClientBehaviour(area: "xctest", name: "task-local bound in invokeTest()", transport: "async setUp()",
                        linux: "reached", apple: "reached", appleSource: .expected(xctestDocs)),
        ClientBehaviour(area: "xctest", name: "task-local bound in invokeTest()", transport: "async test method",
                        linux: "reached", apple: "reached", appleSource: .expected(xctestDocs)),
        ClientBehaviour(area: "xctest", name: "task-local bound in invokeTest()", transport: "async tearDown()",
                        linux: "reached", apple: "reached", appleSource: .expected(xctestDocs)),
    ]

    static func row(_ area: String, _ name: String, _ transport: String) -> ClientBehaviour? {
        table.first { $0.area == area && $0.name == name && $0.transport == transport }
    }
}

/// Compares an observation with the table, and writes it into `MOCK_SERVER_OBSERVED_DIR`
/// when that is set.
enum Observed {
    /// nil when the observation agrees with the table's figure for this platform, else why not.
    static func check(_ area: String, _ name: String, _ transport: String, saw observed: String) -> String? {
        guard let row = ClientBehaviour.row(area, name, transport) else {
            record([area, name, transport, observed, "(no row)", "DISAGREES"])
            return "\(area) \(name) (\(transport)): the table has no row for it; it saw \(observed)"
        }
        let (figure, source) = row.here
        let agrees = figure == observed
        record([area, name, transport, observed, figure, agrees ? "agrees" : "DISAGREES", source])
        return agrees ? nil : "\(area) \(name) (\(transport)): saw \(observed), the table says \(figure) (\(source))"
    }

    /// The observation of a finished request: its URLError, or its status and body size.
    static func describe(_ error: (any Error)?, status: Int? = nil, bytes: Int = 0) -> String {
        guard let error else { return "no error: \(status ?? 0), \(bytes) bytes" }
        guard let urlError = error as? URLError else { return "\(type(of: error)): \(error)" }
        return "URLError \(urlError.code.rawValue) \(name(urlError.code))"
    }

    static func name(_ code: URLError.Code) -> String {
        switch code {
        case .unknown: "unknown"
        case .cancelled: "cancelled"
        case .unsupportedURL: "unsupportedURL"
        case .timedOut: "timedOut"
        case .cannotConnectToHost: "cannotConnectToHost"
        case .networkConnectionLost: "networkConnectionLost"
        case .badServerResponse: "badServerResponse"
        case .zeroByteResource: "zeroByteResource"
        case .cannotDecodeRawData: "cannotDecodeRawData"
        case .cannotParseResponse: "cannotParseResponse"
        case .secureConnectionFailed: "secureConnectionFailed"
        case .serverCertificateHasBadDate: "serverCertificateHasBadDate"
        case .serverCertificateUntrusted: "serverCertificateUntrusted"
        case .serverCertificateHasUnknownRoot: "serverCertificateHasUnknownRoot"
        case .serverCertificateNotYetValid: "serverCertificateNotYetValid"
        case .clientCertificateRejected: "clientCertificateRejected"
        case .userCancelledAuthentication: "userCancelledAuthentication"
        default: "(code \(code.rawValue))"
        }
    }

    /// One file per observation (`<area> <case> <transport>.tsv`), so tests running at
    /// once, in one process or in XCTest's and Swift Testing's two, never share a file.
    private static func record(_ fields: [String]) {
        guard let directory = ProcessInfo.processInfo.environment["MOCK_SERVER_OBSERVED_DIR"], !directory.isEmpty else { return }
        let line = fields.map { $0.replacingOccurrences(of: "\t", with: " ") }.joined(separator: "\t") + "\n"
        let name = fields.prefix(3).joined(separator: " ").map { $0.isLetter || $0.isNumber ? $0 : "-" }
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? Data(line.utf8).write(to: folder.appendingPathComponent(String(name) + ".tsv"), options: .atomic)
    }
}

import Testing
@testable import mock_server

/// `ServeSettings(quick:)` reads the common `serve` invocations without ArgumentParser
/// (start-up, #7). Whatever it accepts must mean exactly what ArgumentParser reads, and
/// whatever it cannot read must be left to ArgumentParser (nil), errors included.
@Suite struct QuickServeTests {
    static let accepted: [[String]] = [
        [],
        ["serve"],
        ["--port", "0"],
        ["--port", "0", "--log-level", "warning"],
        ["serve", "--host", "0.0.0.0", "--port", "65535", "--watch", "--admin-open"],
        ["--strict", "--variant", "community"],
        ["--host", "0.0.0.0", "--admin-token", "s3cret", "--idle-timeout", "5", "--head-timeout", "2.5"],
        ["--max-head-size", "4096", "--max-connections", "10"],
        ["--fixtures", "/tmp/fixtures", "--variant", "community", "--variant", "vapor-8090"],
        ["--scenario", "slow-network", "--seed", "42", "--time-scale", "0.01", "--threads", "1"],
        ["--max-body-size", "1024", "--journal-capacity", "50", "--journal-max-bytes", "100000", "--state", "/tmp/state.json"],
        ["--scenario", "Fixtures/my scenario.json", "--time-scale", "0", "--seed", "18446744073709551615"],
        ["--tls", "--port", "8443"],
        ["--tls", "--tls-cert", "/tmp/server.pem", "--tls-key", "/tmp/server-key.pem"],
        ["--tls-port", "0", "--ca-dir", "/tmp/ca", "--san", "api.example.test", "--san", "10.0.0.2", "--no-http2"],
    ]

    @Test(arguments: accepted)
    func agreesWithArgumentParser(arguments: [String]) throws {
        let quick = try #require(ServeSettings(quick: arguments), "\(arguments) should take the quick path")
        let parsed = try #require(try MockServerCommand.parseAsRoot(arguments) as? Serve)
        #expect(quick == parsed.settings)
    }

    static let leftToArgumentParser: [[String]] = [
        ["--help"], ["-h"], ["help"], ["validate", "x.json"], ["record", "--upstream", "http://x"],
        ["--port=0"], ["--port"], ["--port", "-1"], ["--port", "70000"], ["--port", "eighty"],
        ["--port", "1", "--port", "2"], ["--watch", "--watch"], ["--strict", "--strict"], ["--log-level", "loud"],
        ["--max-body-size", "0"], ["--journal-max-bytes", "0"], ["--journal-capacity", "-5"], ["--time-scale", "nan"], ["--time-scale", "-1"],
        ["--seed", "-1"], ["--threads", "0"], ["--threads", "300"], ["--variant", "nope"],
        ["--unknown", "1"], ["--", "x"],
        ["--host", "0.0.0.0"], ["--host", "0.0.0.0", "--admin-token", "t", "--admin-open"], ["--idle-timeout", "0"],
        ["--max-head-size", "10"], ["--max-connections", "0"], ["--admin-open", "--admin-open"],
        ["--port", "1", "serve"], ["serve", "serve"], ["--scenario", "--watch"],
        ["--tls", "--tls"], ["--tls-port", "70000"], ["--san", "bad name"], ["--tls", "--san", "-x"], ["--ca-dir", "/tmp/ca"],
        ["--port", "8443", "--tls-port", "8443"], ["--tls", "--tls-cert", "/tmp/server.pem"],
    ]

    @Test(arguments: leftToArgumentParser)
    func leavesEverythingElseToArgumentParser(arguments: [String]) {
        #expect(ServeSettings(quick: arguments) == nil)
    }
}

import Foundation
import Logging
import MockFixtures
import MockServer
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing

@Suite struct WatchTests {
    /// Edit a fixture: the server serves the edit; break it: the last good version keeps
    /// serving and the problem is reported; mend it: served again. The watcher looks on a
    /// clock the test moves: one look after each edit, whatever the machine's load.
    @Test(.timeLimit(.minutes(5))) func reloadsGoodEditsAndRefusesBrokenOnes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: MockFixtures.restaurant, to: folder.appendingPathComponent("restaurant"))
        let menu = folder.appendingPathComponent("restaurant/menu.json")
        let original = try String(contentsOf: menu, encoding: .utf8)

        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: folder))
        let server = MockHTTPServer(engine: engine)
        let address = try await server.start()
        let clock = TestClock()
        let watcher = FixtureWatcher(engine: engine, folders: [folder], interval: .milliseconds(50), clock: clock, logger: Logger(label: "test"))
        func soupPrice() async throws -> Double? {
            let (data, _) = try await HTTP.get(URL(string: address.baseURL + "/menu?category=soups")!)
            return JSONValue(parsing: data)?["items"]?.arrayValue?.first?["price"]?.doubleValue
        }
        /// Lets the watcher look once more, and returns when it has (it waits for its next look).
        func waitForReloads(_ count: Int) async throws {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(50))
            await clock.sleepers(atLeast: 1)
            #expect(await watcher.reloads == count)
        }
        await watcher.start()
        #expect(try await soupPrice() == 3.5)

        try original.replacingOccurrences(of: #""price": 3.5"#, with: #""price": 4.25"#).write(to: menu, atomically: true, encoding: .utf8)
        try await waitForReloads(1)
        #expect(await watcher.lastOutcome == .reloaded)
        #expect(try await soupPrice() == 4.25)

        try original.replacingOccurrences(of: #""price": 3.5"#, with: #""price": "cheap""#).write(to: menu, atomically: true, encoding: .utf8)
        try await waitForReloads(2)
        guard case .refused(let problems)? = await watcher.lastOutcome else {
            Issue.record("the broken file was not refused")
            return
        }
        #expect(problems.first?.jsonPath == "$.items[4].price")
        #expect(try await soupPrice() == 4.25)   // the last good version keeps serving

        try original.write(to: menu, atomically: true, encoding: .utf8)
        try await waitForReloads(3)
        #expect(try await soupPrice() == 3.5)
        await watcher.stop()
        await server.stop()
    }

    /// An edit made after the files were read but before the watcher started (while the
    /// server began listening) is reloaded at start: the baseline is the files before
    /// loading. Without it the watcher's first look already includes the edit, and the
    /// old file kept serving (#22).
    @Test func anEditBeforeTheWatcherStartsIsReloaded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-early-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: MockFixtures.restaurant, to: folder.appendingPathComponent("restaurant"))
        let menu = folder.appendingPathComponent("restaurant/menu.json")
        let original = try String(contentsOf: menu, encoding: .utf8)

        let baseline = FixtureWatcher.Baseline.take([folder])
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: folder))
        try original.replacingOccurrences(of: #""price": 3.5"#, with: #""price": 4.25"#).write(to: menu, atomically: true, encoding: .utf8)
        let watcher = FixtureWatcher(engine: engine, folders: [folder], since: baseline, interval: .seconds(3600), logger: Logger(label: "test"))
        await watcher.start()
        await watcher.stop()
        #expect(await watcher.reloads == 1)
        #expect(await watcher.lastOutcome == .reloaded)
        let price = JSONValue(parsing: engine.router.respond(to: MockRequest(method: "GET", uri: "/menu?category=soups")).body)?["items"]?.arrayValue?.first?["price"]?.doubleValue
        #expect(price == 4.25)
    }
}

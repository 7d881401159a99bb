import Foundation
import Logging
import MockFixtures
import MockServer
import Scenarios
import Testing

@Suite struct WatchTests {
    /// Edit a fixture: the server serves the edit; break it: the last good version keeps
    /// serving and the problem is reported; mend it: served again.
    @Test func reloadsGoodEditsAndRefusesBrokenOnes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: MockFixtures.restaurant, to: folder.appendingPathComponent("restaurant"))
        let menu = folder.appendingPathComponent("restaurant/menu.json")
        let original = try String(contentsOf: menu, encoding: .utf8)

        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: folder))
        let server = MockHTTPServer(engine: engine)
        let address = try await server.start()
        let watcher = FixtureWatcher(engine: engine, folders: [folder], interval: .milliseconds(50), logger: Logger(label: "test"))
        func soupPrice() async throws -> Double? {
            let (data, _) = try await HTTP.get(URL(string: address.baseURL + "/menu?category=soups")!)
            return JSONValue(parsing: data)?["items"]?.arrayValue?.first?["price"]?.doubleValue
        }
        func waitForReloads(_ count: Int) async throws {
            // A wait, not a bound: the watcher polls every 50 ms, but on a loaded 2-core
            // machine its task can go unscheduled for seconds (a full run once saw more than 10).
            let deadline = Date().addingTimeInterval(60)
            while await watcher.reloads < count && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
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

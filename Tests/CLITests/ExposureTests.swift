import Foundation
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the server may be reached from, and what it runs on (#12).
@Suite struct ExposureTests {
    func info(_ base: String, token: String? = nil) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: base + "/__admin/info")!)
        if let token { request.setValue(token, forHTTPHeaderField: "X-Admin-Token") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, json)
    }

    static func base(_ line: String?, port host: String = "127.0.0.1") -> String? {
        guard let line, let port = line.split(separator: ":").last else { return nil }
        return "http://\(host):\(port)"
    }

    #if os(Linux)
    /// Pinned to one CPU (taskset), the server runs one event loop, not one per machine core.
    /// Linux only: macOS has no CPU affinity to pin with.
    @Test(.requires(.taskset))
    func oneEventLoopWhenPinnedToOneCPU() async throws {
        let path = try #require(ExternalTool.path(of: "taskset"))
        let child = try MockServerProcess(["-c", "0", MockServerProcess.binary.path, "--port", "0"], executable: URL(fileURLWithPath: path))
        let base = try #require(Self.base(await child.firstLine()))
        let (status, json) = try await info(base)
        #expect(status == 200)
        let transport = try #require(json["transport"] as? [String: Any])
        #expect(transport["eventLoops"] as? Int == 1)
        child.signal(SIGTERM)
        #expect(await child.waitForExit() == 0)
    }
    #endif

    @Test func offLoopbackWithATokenWarnsAndGuardsTheAdminAPI() async throws {
        let child = try MockServerProcess(["--host", "0.0.0.0", "--port", "0", "--admin-token", "s3cret", "--log-level", "error"])
        let base = try #require(Self.base(await child.firstLine()))
        #expect(try await info(base).status == 401)
        #expect(try await info(base, token: "s3cret").status == 200)
        let (_, menu) = try await URLSession.shared.data(from: URL(string: base + "/menu")!)
        #expect((menu as? HTTPURLResponse)?.statusCode == 200)
        child.signal(SIGTERM)
        #expect(await child.waitForExit() == 0)
        let stderr = child.readAll(child.stderr)
        #expect(stderr.contains("warning: listening on 0.0.0.0"), "\(stderr)")
    }

    @Test func offLoopbackOpenWarnsThatTheAdminAPIIsOpen() async throws {
        let child = try MockServerProcess(["--host", "0.0.0.0", "--port", "0", "--admin-open", "--log-level", "error"])
        let base = try #require(Self.base(await child.firstLine()))
        #expect(try await info(base).status == 200)
        child.signal(SIGTERM)
        #expect(await child.waitForExit() == 0)
        #expect(child.readAll(child.stderr).contains("OPEN"))
    }

    @Test func loopbackNeedsNoToken() async throws {
        let child = try MockServerProcess(["--port", "0", "--log-level", "error"])
        let base = try #require(Self.base(await child.firstLine()))
        #expect(try await info(base).status == 200)
        child.signal(SIGTERM)
        #expect(await child.waitForExit() == 0)
        #expect(!child.readAll(child.stderr).contains("warning"))
    }

    /// SIGTERM while a response hangs (the `hang` scenario): it is cut within the grace and the
    /// state file is written.
    @Test func sigtermDuringADelayStopsWithinASecondAndSavesState() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString).json")
        let child = try MockServerProcess(["--port", "0", "--scenario", "hang", "--state", state.path, "--log-level", "error"])
        let base = try #require(Self.base(await child.firstLine()))
        var request = URLRequest(url: URL(string: base + "/menu")!)
        request.timeoutInterval = 3600
        let pending = Task { try? await URLSession.shared.data(for: request) }
        // Hung once the server has journaled it (its admin API says so).
        var journaled = false
        for _ in 0..<6_000 where !journaled {
            let (data, _) = try await URLSession.shared.data(from: URL(string: base + "/__admin/requests?limit=5")!)
            journaled = String(decoding: data, as: UTF8.self).contains("/menu")
            if !journaled { try await Task.sleep(nanoseconds: 20_000_000) }
        }
        #expect(journaled, "the hung request reached the server")
        let start = Date()
        child.signal(SIGTERM)
        let status = await child.waitForExit(timeout: 900)
        let elapsed = Date().timeIntervalSince(start)
        #expect(status == 0)
        // Cut at the 1 s grace, not held by the hang until the client's hour-long timeout: the
        // bound, 5 minutes, is a margin a loaded 2-core machine cannot eat.
        #expect(elapsed < 300, "stopping took \(elapsed) s with a hung response and a 1 s grace")
        #expect(FileManager.default.fileExists(atPath: state.path))
        _ = await pending.value
    }
}

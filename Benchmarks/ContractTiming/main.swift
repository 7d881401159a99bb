// Times what users pay for in their test runs, for Benchmarks/bench.py. Prints one JSON
// object per line.
//
//   contract-timing [ROUNDS]            the shipped contract suites with the reference
//                                       providers: {"api", "checks", "passed", "seconds": [..],
//                                       "slowest": [[check, seconds], ..]}
//   contract-timing servers [COUNT]     a server per test as the .mockServer trait makes one:
//                                       start, first answer over a socket, stop, COUNT times:
//                                       {"servers", "median_ms", "p99_ms", "max_ms"}
import ContractTests
import Foundation
import MockFixtures
import MockServer
import Scenarios
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func emit(_ json: [String: Any]) {
    let data = (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data()
    print(String(decoding: data, as: UTF8.self))
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "phases" {
    // Where a per-test server's time goes (a diagnostic, not a benchmark row).
    let session = URLSession(configuration: .ephemeral)
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
    for _ in 0..<5 {
        let t0 = ContinuousClock.now
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
        let t1 = ContinuousClock.now
        let server = MockHTTPServer(engine: engine)
        let address = try await server.start()
        let t2 = ContinuousClock.now
        _ = try await session.data(from: URL(string: address.baseURL + "/categories")!)
        let t3 = ContinuousClock.now
        await server.stop()
        let t4 = ContinuousClock.now
        emit(["engine_ms": ms(t1 - t0), "start_ms": ms(t2 - t1), "request_ms": ms(t3 - t2), "stop_ms": ms(t4 - t3)])
    }
} else if arguments.first == "servers" {
    let count = arguments.dropFirst().first.flatMap(Int.init) ?? 1000
    let session = URLSession(configuration: .ephemeral)
    var milliseconds: [Double] = []
    for _ in 0..<count {
        let start = ContinuousClock.now
        let server = try await TestMockServer.start()
        let (_, response) = try await session.data(from: server.url("/categories"))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { fatalError("no 200 from the per-test server") }
        await server.stop()
        let elapsed = ContinuousClock.now - start
        milliseconds.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    let sorted = milliseconds.sorted()
    emit(["servers": count, "median_ms": percentile(sorted, 0.5), "p99_ms": percentile(sorted, 0.99), "max_ms": sorted.last ?? 0])
} else {
    let rounds = arguments.first.flatMap(Int.init) ?? 3
    let configuration = SuiteConfiguration()
    func line(_ api: String, _ reports: [ContractReport]) {
        let seconds = reports.map { ($0.duration * 1000).rounded() / 1000 }
        let slowest = (reports.last?.results ?? []).sorted { $0.duration > $1.duration }.prefix(5)
            .map { [$0.id, ($0.duration * 1000).rounded() / 1000] as [Any] }
        emit(["api": api, "checks": reports.first?.results.count ?? 0, "passed": reports.allSatisfy(\.passed),
              "seconds": seconds, "slowest": slowest])
    }
    var restaurant: [ContractReport] = []
    var openMarket: [ContractReport] = []
    for _ in 0..<rounds {
        restaurant.append(await RestaurantContract.suite(configuration).run { ReferenceRestaurantProvider(context: $0) })
        openMarket.append(await OpenMarketContract.suite(configuration).run { ReferenceOpenMarketProvider(context: $0) })
    }
    line("restaurant", restaurant)
    line("openmarket", openMarket)
}

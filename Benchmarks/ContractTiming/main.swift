// Times the shipped contract suites with the reference providers, for Benchmarks/bench.py.
// Prints one JSON object per line: {"api": ..., "checks": N, "passed": true, "seconds": [..]}.
import ContractTests
import Foundation
import MockFixtures

let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 3
let configuration = SuiteConfiguration(fixturesDirectory: MockFixtures.directory)

func line(_ api: String, _ reports: [ContractReport]) {
    let seconds = reports.map { ($0.duration * 1000).rounded() / 1000 }
    let json: [String: Any] = ["api": api, "checks": reports.first?.results.count ?? 0,
                               "passed": reports.allSatisfy(\.passed), "seconds": seconds]
    let data = (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data()
    print(String(decoding: data, as: UTF8.self))
}

var restaurant: [ContractReport] = []
var openMarket: [ContractReport] = []
for _ in 0..<rounds {
    restaurant.append(await RestaurantContract.suite(configuration).run { ReferenceRestaurantProvider(context: $0) })
    openMarket.append(await OpenMarketContract.suite(configuration).run { ReferenceOpenMarketProvider(context: $0) })
}
line("restaurant", restaurant)
line("openmarket", openMarket)

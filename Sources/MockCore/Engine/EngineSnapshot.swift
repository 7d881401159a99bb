import Foundation

/// A snapshot file: its version, each served API's state under the API's `snapshotKey`,
/// and the scenario states.
struct EngineSnapshot: Codable {
    static let currentVersion = 1
    /// The decoder's `userInfo` key for the served APIs (a `ServedBox`) a snapshot is read for.
    static let servedKey = CodingUserInfoKey(rawValue: "mockServer.servedAPIs")!

    final class ServedBox: Sendable {
        let served: [APIs.Served]
        init(_ served: [APIs.Served]) { self.served = served }
    }

    var version: Int
    var scenarios: ScenarioEngine.Snapshot
    /// The APIs whose state is written (encoding only).
    private var apis: [APIs.Served] = []
    /// What puts each API's state back, read in full before any is run (decoding only).
    private(set) var restores: [() -> Void] = []

    init(version: Int, apis: [APIs.Served], scenarios: ScenarioEngine.Snapshot) {
        self.version = version
        self.apis = apis
        self.scenarios = scenarios
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(version, forKey: Key("version"))
        try container.encode(scenarios, forKey: Key("scenarios"))
        for api in apis {
            try Self.encodeState(of: api.instance, into: &container, key: Key(api.api.snapshotKey))
        }
    }

    private static func encodeState<A: ServedAPI>(of api: A, into container: inout KeyedEncodingContainer<Key>, key: Key) throws {
        guard A.Snapshot.self != NoSnapshot.self else { return }
        try container.encode(api.snapshot(), forKey: key)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        version = try container.decode(Int.self, forKey: Key("version"))
        scenarios = try container.decode(ScenarioEngine.Snapshot.self, forKey: Key("scenarios"))
        let served = (decoder.userInfo[Self.servedKey] as? ServedBox)?.served ?? []
        for api in served where container.contains(Key(api.api.snapshotKey)) {
            restores.append(try Self.decodeState(of: api.instance, from: container, key: Key(api.api.snapshotKey)))
        }
    }

    private static func decodeState<A: ServedAPI>(of api: A, from container: KeyedDecodingContainer<Key>, key: Key) throws -> () -> Void {
        let state = try container.decode(A.Snapshot.self, forKey: key)
        return { api.restore(state) }
    }
}

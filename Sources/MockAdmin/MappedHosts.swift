import MockCore

/// The host names an engine answers to by name: what the forward proxy intercepts and what
/// `/__admin/proxy` lists.
package enum MappedHosts {
    /// The hosts `engine` answers to by name (lower case, each once): its APIs' hosts, then
    /// its host map's, sorted.
    package static func of(_ engine: MockEngine) -> [String] {
        var seen = Set<String>()
        let configuration = engine.configuration
        let names = configuration.apis.flatMap(\.hosts) + configuration.hostMap.keys.sorted()
        return names.map { $0.lowercased() }.filter { seen.insert($0).inserted }
    }
}

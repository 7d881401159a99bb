import Foundation
import Logging
import MockCore
import MockServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An engine's place in the in-process transport: its base URL, the session
/// configurations that reach it, and the loopback listener behind them. Unregister when
/// done.
///
/// Each configuration from `sessionConfiguration(timeout:)` gets a protocol class of its
/// own, so a request tells the transport which configuration its session was made from.
/// That is how the session-wide headers a provider sets on it (`httpAdditionalHeaders`)
/// reach the engine: a custom `URLProtocol` never sees them on Apple platforms or in
/// swift-corelibs-foundation, while a socket carries them.
///
/// The headers are read from the configuration at each request, so set them before
/// making the session (URLSession copies its configuration; a later change reaches the
/// in-process transport but would not reach a socket). A registration keeps its 64 newest
/// configurations: a session made from an older one no longer has its headers merged.
///
/// The base URL is a real listener on 127.0.0.1 serving the same engine, for what a
/// `URLProtocol` cannot carry faithfully: on Apple platforms an upload task's body never
/// reaches a custom protocol, so the transport declines upload tasks and URLSession sends
/// them over that socket (with the session's headers, as a real network would); and a
/// session built without this configuration (`URLSession.shared`) reaches it as well.
public struct InProcessRegistration: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL
    /// `127.0.0.1:PORT`, the key the transport answers for.
    let authority: String
    let server: MockHTTPServer

    /// A fresh configuration whose requests this engine answers in process: ephemeral,
    /// `timeoutIntervalForRequest` set, no URL cache. Set the session-wide headers on it
    /// (not on a copy), then make the session; copying only its `protocolClasses` into
    /// another configuration loses that configuration's headers.
    public func sessionConfiguration(timeout: TimeInterval = MockURLProtocol.defaultRequestTimeout) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        let slot = InProcessRegistry.shared.issue(configuration, for: authority)
        // The platform's own protocols stay behind ours, for the tasks ours declines.
        configuration.protocolClasses = [ConfigurationSlots.protocolClass(slot)] + (configuration.protocolClasses ?? [])
        return configuration
    }

    /// Stops answering: the listener closes and the configurations are forgotten.
    public func unregister() async {
        InProcessRegistry.shared.remove(authority)
        await server.stop()
    }
}

/// The engines the in-process transport answers for (by `host:port`) and the session
/// configurations handed out for them (by slot). Bounded: a registration keeps at most
/// `configurationsPerEngine` configurations (past it, its oldest slot is reused), and
/// slots are returned when the registration ends, so the number of protocol classes is
/// the most configurations ever alive at once.
final class InProcessRegistry: Sendable {
    static let shared = InProcessRegistry()
    static let configurationsPerEngine = 64

    struct Entry {
        /// The pipeline of the engine's server: in process, requests get its answers.
        let pipeline: Pipeline
        let requestTimeout: TimeInterval
        /// This engine's slots, oldest first.
        var slots: [Int] = []
    }

    struct State {
        var entries: [String: Entry] = [:]
        var configurations: [Int: (authority: String, configuration: URLSessionConfiguration)] = [:]
        var freeSlots: [Int] = []
        var nextSlot = 1
    }

    private let state = Locked(State())

    func add(_ pipeline: Pipeline, requestTimeout: TimeInterval, authority: String) {
        state.withLock { $0.entries[authority] = Entry(pipeline: pipeline, requestTimeout: requestTimeout) }
    }

    func remove(_ authority: String) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: authority) else { return }
            for slot in entry.slots {
                state.configurations[slot] = nil
                state.freeSlots.append(slot)
            }
        }
    }

    /// Gives `configuration` a slot of its own under `authority`.
    func issue(_ configuration: URLSessionConfiguration, for authority: String) -> Int {
        state.withLock { state in
            guard var entry = state.entries[authority] else { return 0 }
            let slot: Int
            if entry.slots.count >= Self.configurationsPerEngine {
                slot = entry.slots.removeFirst()
            } else if let free = state.freeSlots.popLast() {
                slot = free
            } else {
                slot = state.nextSlot
                state.nextSlot += 1
            }
            entry.slots.append(slot)
            state.entries[authority] = entry
            state.configurations[slot] = (authority, configuration)
            return slot
        }
    }

    func entry(for authority: String) -> Entry? {
        state.withLock { $0.entries[authority] }
    }

    /// The configuration behind `slot`, if it was issued for `authority` and still is.
    func configuration(slot: Int, authority: String) -> URLSessionConfiguration? {
        state.withLock { state in
            guard let issued = state.configurations[slot], issued.authority == authority else { return nil }
            return issued.configuration
        }
    }

    /// How many configurations `authority` holds (the bound's test).
    func configurationCount(for authority: String) -> Int {
        state.withLock { $0.entries[authority]?.slots.count ?? 0 }
    }

    /// `host:port` of a URL, the registry's key.
    static func authority(of url: URL?) -> String? {
        guard let url, let host = url.host else { return nil }
        return "\(host):\(url.port ?? (url.scheme == "https" ? 443 : 80))"
    }
}

/// A protocol class per slot. Each slot number is spelled as a type (its binary digits,
/// `Slot1<Slot0<SlotEnd>>` is 6), and `SlottedMockURLProtocol<Number>` is a distinct
/// `MockURLProtocol` subclass for each, which URLSession instantiates like any other.
enum ConfigurationSlots {
    static func protocolClass(_ slot: Int) -> AnyClass {
        guard slot > 0 else { return MockURLProtocol.self }
        return subclass(number(slot))
    }

    private static func number(_ slot: Int) -> any SlotNumber.Type {
        if slot == 1 { return SlotEnd.self }
        let rest = number(slot / 2)
        return slot % 2 == 0 ? appendingZero(rest) : appendingOne(rest)
    }

    private static func appendingZero<Rest: SlotNumber>(_: Rest.Type) -> any SlotNumber.Type { Slot0<Rest>.self }
    private static func appendingOne<Rest: SlotNumber>(_: Rest.Type) -> any SlotNumber.Type { Slot1<Rest>.self }
    private static func subclass<Number: SlotNumber>(_: Number.Type) -> AnyClass { SlottedMockURLProtocol<Number>.self }
}

protocol SlotNumber { static var value: Int { get } }
enum SlotEnd: SlotNumber { static var value: Int { 1 } }
enum Slot0<Rest: SlotNumber>: SlotNumber { static var value: Int { Rest.value * 2 } }
enum Slot1<Rest: SlotNumber>: SlotNumber { static var value: Int { Rest.value * 2 + 1 } }

/// `MockURLProtocol` for the configuration in slot `Number.value`.
final class SlottedMockURLProtocol<Number: SlotNumber>: MockURLProtocol {
    override class var configurationSlot: Int { Number.value }
}

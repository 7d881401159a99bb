import MockCore
import NIOCore
import NIOPosix

/// Event loops for servers that start and stop within a test run (`TestMockServer`, each
/// contract check's server): a live server gets a loop no other live server uses while
/// fewer than `limit` are live; past that, the loop the fewest use.
///
/// Why not `MultiThreadedEventLoopGroup.singleton`, one loop per core, for all of them:
/// tests run in parallel, and servers that share a loop wait in one queue. On a machine
/// of few cores a check's delayed answer then fires late behind its neighbours' work (TLS
/// handshakes, pages, uploads), late enough for a timing check to see a timeout its
/// provider did not cause. On a loop of its own a server waits only for its own work and
/// for the kernel's scheduler, which soon runs a thread that was asleep.
///
/// A loop is one thread, made when first needed and kept for the process's life, as the
/// singleton's are. A thread whose loop has nothing to do costs no CPU, and after the first
/// tests a server's start makes none. `mock-server` serves on a group of its own (one loop
/// per usable core), not on these.
public final class ServerLoops: Sendable {
    /// The loops `TestMockServer` and contract checks use: at most 8 per usable core, and at
    /// least 32, which is more servers than most test runs have live at once.
    public static let shared = ServerLoops(limit: max(32, 8 * UsableCores.count))

    /// The most loops (threads) this ever makes.
    public let limit: Int
    private let loops = Locked([Entry]())

    private struct Entry {
        let group: MultiThreadedEventLoopGroup
        /// Servers that hold a lease on it.
        var leases: Int
    }

    /// One server's hold on a loop, given back with `release()` once the server stopped.
    public final class Lease: Sendable {
        /// The loop the server runs on; it stays the lease's until `release()`.
        public let loop: any EventLoop
        private let index: Int
        private let owner: ServerLoops
        private let released = Locked(false)

        fileprivate init(loop: any EventLoop, index: Int, owner: ServerLoops) {
            self.loop = loop
            self.index = index
            self.owner = owner
        }

        /// Gives the loop back, after the server's `stop()`. A second call does nothing.
        public func release() {
            let first = released.withLock { released in
                defer { released = true }
                return !released
            }
            if first { owner.release(index) }
        }
    }

    /// Makes a pool that makes at most `limit` loops (at least 1).
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A loop for one server: one no live server uses (made if none is free and fewer than
    /// `limit` exist), else the one the fewest use.
    public func lease() -> Lease {
        loops.withLock { loops in
            let index: Int
            if let least = loops.indices.min(by: { loops[$0].leases < loops[$1].leases }),
               loops[least].leases == 0 || loops.count >= limit {
                index = least
            } else {
                loops.append(Entry(group: MultiThreadedEventLoopGroup(numberOfThreads: 1), leases: 0))
                index = loops.count - 1
            }
            loops[index].leases += 1
            return Lease(loop: loops[index].group.next(), index: index, owner: self)
        }
    }

    fileprivate func release(_ index: Int) {
        loops.withLock { loops in
            loops[index].leases -= 1
        }
    }

    /// Ends every loop's thread, for an instance of one's own once its servers stopped and
    /// gave their leases back; lease nothing from it afterwards. Does nothing on `shared`,
    /// whose loops every test server uses and which live as long as the process.
    public func shutdown() async {
        guard self !== Self.shared else { return }
        for group in loops.withLock({ $0.map(\.group) }) {
            try? await group.shutdownGracefully()
        }
    }

    /// Makes a server on a leased loop with `make` and starts it; the loop is given back if
    /// the start fails. The caller gives it back (`Lease.release()`) after `stop()`.
    public func start(_ make: (any EventLoop) -> MockHTTPServer) async throws -> (server: MockHTTPServer, address: BoundAddress, lease: Lease) {
        let lease = lease()
        let server = make(lease.loop)
        do {
            return (server, try await server.start(), lease)
        } catch {
            lease.release()
            throw error
        }
    }

    /// How many loops exist and how many servers hold each (for tests).
    public var leaseCounts: [Int] { loops.withLock { $0.map(\.leases) } }
}

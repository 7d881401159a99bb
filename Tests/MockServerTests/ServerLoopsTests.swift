import Foundation
import MockFixtures
import MockServer
import NIOCore
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The loops test servers run on (`ServerLoops`): one per live server up to the limit,
/// never more loops than the limit, and a server that answers while another's loop is stuck.
@Suite struct ServerLoopsTests {
    @Test func eachLiveServerGetsALoopOfItsOwnUpToTheLimit() async {
        let loops = ServerLoops(limit: 3)
        let first = (0..<3).map { _ in loops.lease() }
        #expect(Set(first.map { ObjectIdentifier($0.loop) }).count == 3)
        #expect(loops.leaseCounts == [1, 1, 1])

        // Past the limit, servers share the least used loops; no fourth loop is made.
        let more = (0..<4).map { _ in loops.lease() }
        #expect(loops.leaseCounts == [3, 2, 2])
        #expect(Set((first + more).map { ObjectIdentifier($0.loop) }).count == 3)

        // Given back, the loops are used again rather than made anew; a second release of
        // one lease gives back nothing more.
        for lease in first + more { lease.release() }
        first[0].release()
        #expect(loops.leaseCounts == [0, 0, 0])
        let again = (0..<3).map { _ in loops.lease() }
        #expect(loops.leaseCounts == [1, 1, 1])
        #expect(Set(again.map { ObjectIdentifier($0.loop) }) == Set(first.map { ObjectIdentifier($0.loop) }))
        for lease in again { lease.release() }
        await loops.shutdown()
    }

    /// A free loop is taken before a busy one, also when the free one was made first.
    @Test func aGivenBackLoopIsTakenBeforeSharingOne() async {
        let loops = ServerLoops(limit: 2)
        let a = loops.lease(), b = loops.lease()
        a.release()
        let c = loops.lease()
        #expect(ObjectIdentifier(c.loop) == ObjectIdentifier(a.loop))
        #expect(loops.leaseCounts == [1, 1])
        b.release()
        c.release()
        await loops.shutdown()
    }

    /// The server answers while the loop of the server beside it is stuck. The stuck
    /// loop's task holds its thread until the server's journal shows the answer written
    /// (or a 300 s cap, which only bounds a failure), and says which came first; on a shared loop the answer could not
    /// be written while the task held it. Judged on the loops' own threads: a test's task
    /// may wait long for a pool thread in a full run, and that must not decide.
    @Test func aServerAnswersWhileAnotherServersLoopIsStuck() async throws {
        let loops = ServerLoops(limit: 2)
        let stuck = loops.lease(), free = loops.lease()
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
        let server = MockHTTPServer(engine: engine, group: free.loop)
        let address = try await server.start()
        let answeredWhileStuck = Locked(false)
        stuck.loop.execute {
            let cap = Date().addingTimeInterval(300)
            func written() -> Bool { engine.journal.entries().first?.duration != nil }
            while !written(), Date() < cap { usleep(2_000) }
            answeredWhileStuck.withLock { $0 = written() }
        }
        let answer: (Data, URLResponse)
        do {
            answer = try await HTTP.session.data(from: URL(string: address.baseURL + "/categories")!)
            // Runs once the stuck task has let go.
            try await stuck.loop.submit {}.get()
        } catch {
            await server.stop()
            await loops.shutdown()
            throw error
        }
        await server.stop()
        stuck.release()
        free.release()
        await loops.shutdown()
        let (body, response) = answer
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("categories"))
        #expect(answeredWhileStuck.current, "the answer was written only after the other loop was let go")
    }
}

/// Keeps timing-sensitive tests from running while heavy ones load the machine: heavy
/// tests (whole contract suites, hundreds of servers) hold the gate shared, tests that
/// measure time hold it exclusively. All test targets run in one process, so one gate
/// covers them all. Writers are preferred, so a timing test never waits forever.
public actor TestGate {
    public static let shared = TestGate()

    private var readers = 0
    private var writing = false
    private var waitingWriters: [CheckedContinuation<Void, Never>] = []
    private var waitingReaders: [CheckedContinuation<Void, Never>] = []

    public func acquire(exclusive: Bool) async {
        if exclusive {
            if writing || readers > 0 {
                await withCheckedContinuation { waitingWriters.append($0) }
            } else {
                writing = true
            }
        } else {
            if writing || !waitingWriters.isEmpty {
                await withCheckedContinuation { waitingReaders.append($0) }
            } else {
                readers += 1
            }
        }
    }

    public func release(exclusive: Bool) {
        if exclusive { writing = false } else { readers -= 1 }
        guard !writing, readers == 0 || waitingWriters.isEmpty else { return }
        if readers == 0, !waitingWriters.isEmpty {
            writing = true
            waitingWriters.removeFirst().resume()
        } else if waitingWriters.isEmpty {
            readers += waitingReaders.count
            waitingReaders.forEach { $0.resume() }
            waitingReaders.removeAll()
        }
    }
}

/// Runs `body` holding the gate: `exclusive` for tests that measure time, shared for heavy ones.
public func withTestGate<T>(exclusive: Bool, _ body: () async throws -> T) async rethrows -> T {
    await TestGate.shared.acquire(exclusive: exclusive)
    do {
        let result = try await body()
        await TestGate.shared.release(exclusive: exclusive)
        return result
    } catch {
        await TestGate.shared.release(exclusive: exclusive)
        throw error
    }
}

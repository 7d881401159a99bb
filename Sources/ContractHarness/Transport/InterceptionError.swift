/// Why a test cannot intercept what it asked for.
public enum InterceptionError: Error, CustomStringConvertible {
    /// An entry of `intercepting:` that is no host or `host:port`.
    case invalidHost(String, reason: String)
    /// Waiting for `host` would never end: the test that holds it waits, directly or
    /// through other tests, for a host the asking test holds. `cycle` lists the hosts
    /// held around the cycle, from `host` on; `[host]` alone when the asking task holds
    /// `host` itself through an interception it made with `TestMockServer.intercept(_:)`
    /// outside any test's scope, which ends only with its `end()`.
    case wouldDeadlock(host: String, cycle: [String])
    /// The task was cancelled (a test's time limit, a stopped run) while it waited for
    /// another test to stop intercepting `host`.
    case cancelled(host: String)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .invalidHost(let entry, let reason):
            return "cannot intercept \"\(entry)\": \(reason)"
        case .wouldDeadlock(let host, let cycle) where cycle == [host]:
            return "intercepting \(host) would wait forever: this task already intercepts it with intercept(_:), outside any test's "
                + "scope, and that interception ends only with its end(). End it first, or intercept in a scope "
                + "(intercepting(_:isolation:_:), .mockServer(intercepting:), MockServerTestCase.mockIntercepting), "
                + "where a test takes a host it holds again at once."
        case .wouldDeadlock(let host, let cycle):
            return "intercepting \(host) would wait forever: tests holding \(cycle.joined(separator: ", ")) each wait for "
                + "a host another of them holds, so none would end. Name every host a test intercepts in its outermost "
                + "scope (.mockServer(intercepting:) on the suite or test, MockServerTestCase.mockIntercepting, or one "
                + "intercepting(_:isolation:_:) call), so that it takes them all at once, in one order."
        case .cancelled(let host):
            return "cancelled while waiting for another test to stop intercepting \(host) (a time limit ran out, or the "
                + "run was stopped). A wait the locks cannot see may keep that test from ending: one that waits for this "
                + "test through Task.detached, a callback or a semaphore. Give such tests hosts of their own."
        }
    }
}

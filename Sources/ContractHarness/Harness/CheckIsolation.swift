import Dispatch

/// Where one check runs the provider's code: a serial dispatch queue of its own, used as
/// the Swift task executor of every call the check makes (where the platform has task
/// executors: Swift 6 runtimes, macOS 15 / iOS 18 and later, Linux).
///
/// Why: checks run in parallel, and a provider that blocks its thread (a synchronous
/// `Data(contentsOf:)`, a semaphore around a data task) would otherwise block threads of
/// the shared cooperative pool — two cores, two threads — so that another check's
/// provider, and the harness's own clocks, wait for a thread. A timing check would then
/// time its neighbour, not its provider (a 1 s timeout reported well past 1 s). A serial
/// queue targets the overcommitting global queue, so a queue whose thread is blocked gets
/// another thread, and a blocking provider costs only its own check. The calls are timed
/// on their own executor too, so a check's seconds are its provider's seconds.
///
/// Code the provider runs on an actor of its own still runs on that actor's executor
/// (the shared pool), as it does in the app.
public struct CheckIsolation: Sendable {
    private let queue: DispatchQueue
    private let executor: (any Sendable)?

    /// Makes the isolation of one check: a serial queue named after `label`, its executor where the platform has task executors.
    public init(label: String) {
        queue = DispatchQueue(label: "mock-server.contract.\(label)")
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            executor = QueueTaskExecutor(queue: queue)
        } else {
            executor = nil
        }
    }

    /// Starts `body` as a task whose code runs on this check's queue.
    @discardableResult
    public func task<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> Task<T, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *), let executor = executor as? QueueTaskExecutor {
            return Task(executorPreference: executor, operation: body)
        }
        return Task(operation: body)
    }
}

/// A `TaskExecutor` that runs jobs on one serial dispatch queue.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class QueueTaskExecutor: TaskExecutor, Sendable {
    let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

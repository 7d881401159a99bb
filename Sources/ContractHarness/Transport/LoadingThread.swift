import Foundation
#if canImport(Darwin)
import CoreFoundation
#endif

/// Where a `URLProtocol` must call its client: the thread that ran `startLoading`.
///
/// Apple's URL loading system calls `startLoading` on a thread of its own whose run loop
/// it drives, and requires every client callback on that thread, in that run loop's mode
/// (Apple's CustomHTTPProtocol sample does the same with `performSelector:onThread:`).
/// There a callback is enqueued on the run loop with `CFRunLoopPerformBlock`, in the mode
/// current at `startLoading` and the default mode, and the run loop is woken.
///
/// swift-corelibs-foundation (Linux) calls `startLoading` from a dispatch queue with no
/// run loop running and its client hops to the task's own queue itself: callbacks run
/// on a serial queue of this protocol instance, which keeps them in order.
struct LoadingThread: @unchecked Sendable {
    #if canImport(Darwin)
    private let runLoop: CFRunLoop
    private let modes: CFArray

    /// The calling thread's run loop, in its current mode and the default mode.
    static func current() -> LoadingThread {
        let runLoop: CFRunLoop = CFRunLoopGetCurrent()
        var modes: [CFString] = [CFRunLoopMode.defaultMode.rawValue]
        if let mode = CFRunLoopCopyCurrentMode(runLoop), (mode.rawValue as String) != (CFRunLoopMode.defaultMode.rawValue as String) {
            modes.append(mode.rawValue)
        }
        return LoadingThread(runLoop: runLoop, modes: modes as CFArray)
    }

    func perform(_ work: @escaping () -> Void) {
        CFRunLoopPerformBlock(runLoop, modes, work)
        CFRunLoopWakeUp(runLoop)
    }
    #else
    private let queue: DispatchQueue

    static func current() -> LoadingThread {
        LoadingThread(queue: DispatchQueue(label: "mock-server.url-protocol"))
    }

    func perform(_ work: @escaping () -> Void) {
        let work = Unchecked(work)
        queue.async { work.value() }
    }
    #endif
}

import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a lock. The engine's mutable parts (journal, simulator state) are
/// touched from many event loops; every access is short and never spans I/O.
///
/// The value and the lock share one allocation, and both are reached through pointers:
/// the C library's own lock (`os_unfair_lock` on Apple platforms, a `pthread_mutex_t` on
/// Linux), with no Objective-C message or `NSLock` object in between, and no run-time
/// exclusivity check on the value (a class's stored `var` has one on every access). A
/// request takes about ten of these, so what each one costs is paid ten times over. Not
/// recursive (nor is `NSLock`): taking it again on the thread that holds it is a
/// programming error.
public final class Locked<Value>: @unchecked Sendable {
    private let storage: LockedStorage<Value>

    /// Makes a lock around `value`.
    public init(_ value: Value) { storage = LockedStorage.make(value) }

    /// Runs `body` with the value while holding the lock; `body` must not block or take this lock again.
    @discardableResult
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try storage.withLock(body)
    }

    /// A copy of the value, read under the lock.
    public var current: Value { withLock { $0 } }
}

#if canImport(Darwin)
typealias LockPrimitive = os_unfair_lock
#elseif canImport(Glibc) || canImport(Musl)
typealias LockPrimitive = pthread_mutex_t
#else
/// Elsewhere (no platform the package declares), Foundation's lock.
typealias LockPrimitive = NSLock
#endif

/// The value (the header) and its lock (the one element) of a `Locked`.
final class LockedStorage<Value>: ManagedBuffer<Value, LockPrimitive> {
    static func make(_ value: Value) -> LockedStorage<Value> {
        // `create` makes an instance of this class (it is called on it). A checked cast,
        // as in swift-nio's same storage: `unsafeDowncast` has been miscompiled there.
        let storage = create(minimumCapacity: 1) { _ in value } as! LockedStorage<Value>
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
            #elseif canImport(Glibc) || canImport(Musl)
            lock.initialize(to: pthread_mutex_t())
            let error = pthread_mutex_init(lock, nil)
            precondition(error == 0, "pthread_mutex_init failed: \(error)")
            #else
            lock.initialize(to: NSLock())
            #endif
        }
        return storage
    }

    /// The lock is destroyed here; the value, `ManagedBuffer`'s stored `header`, goes with
    /// the object.
    deinit {
        withUnsafeMutablePointerToElements { lock in
            #if canImport(Glibc) || canImport(Musl)
            pthread_mutex_destroy(lock)
            #endif
            lock.deinitialize(count: 1)
        }
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try withUnsafeMutablePointers { value, lock in
            #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            #elseif canImport(Glibc) || canImport(Musl)
            let locked = pthread_mutex_lock(lock)
            precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
            defer {
                let unlocked = pthread_mutex_unlock(lock)
                precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
            }
            #else
            lock.pointee.lock()
            defer { lock.pointee.unlock() }
            #endif
            return try body(&value.pointee)
        }
    }
}

#if canImport(Darwin)
import Foundation
import MockCore

/// The WebSocket checks' provider for `URLSessionWebSocketTask`, Apple platforms' own
/// WebSocket client, in a session built as a provider's is (``ProviderContext``: its
/// configuration and, over `.secureSockets`, the local CA's trust). The task answers pings
/// and the server's close itself; this adapter maps its calls: `send`, `receive`,
/// `cancel(with:reason:)`, and the close code as URLSession reports it, to the session's
/// delegate (`urlSession(_:webSocketTask:didCloseWith:reason:)`).
///
///     let report = await WebSocketContract.suite().run { URLSessionWebSocketProvider(context: $0) }
public struct URLSessionWebSocketProvider: WebSocketProvider {
    /// The session the tasks run in; its delegate records each task's close.
    public let session: URLSession
    private let closes: Closes

    /// A provider whose tasks run in a session of `context`'s configuration, trusting the
    /// local CA over `.secureSockets` (``ProviderContext/sessionDelegate``).
    public init(context: ProviderContext) {
        closes = Closes(trust: context.sessionDelegate)
        session = URLSession(configuration: context.sessionConfiguration, delegate: closes, delegateQueue: nil)
    }

    /// Starts a `URLSessionWebSocketTask` for `request`; its handshake goes on after this returns.
    public func connect(_ request: URLRequest) async throws -> any WebSocketConnection {
        let task = session.webSocketTask(with: request)
        task.resume()
        return Connection(task: task, closes: closes, timeout: request.timeoutInterval)
    }

    /// One `URLSessionWebSocketTask`.
    struct Connection: WebSocketConnection, @unchecked Sendable {
        // URLSessionTask is thread-safe: its calls may come from any thread.
        let task: URLSessionWebSocketTask
        let closes: Closes
        let timeout: TimeInterval

        func send(_ message: WebSocketContract.Message) async throws {
            switch message {
            case .text(let text): try await task.send(.string(text))
            case .binary(let bytes): try await task.send(.data(bytes))
            }
        }

        func receive() async throws -> WebSocketContract.Message {
            switch try await task.receive() {
            case .string(let text): return .text(text)
            case .data(let bytes): return .binary(bytes)
            @unknown default: throw URLError(.cannotDecodeContentData)
            }
        }

        func close(code: UInt16, reason: String) async {
            let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
            task.cancel(with: closeCode, reason: reason.isEmpty ? nil : Data(reason.utf8))
        }

        /// The code the delegate was told of, waiting for it at most `timeout` seconds
        /// (a failed receive may come before the delegate's call); then the task's own.
        var closeCode: UInt16? {
            get async {
                let reported = await closes.code(of: task.taskIdentifier, within: timeout) ?? 0
                let raw = reported > 0 ? reported : task.closeCode.rawValue
                // 0: still open; 1005: a close without a code (RFC 6455 §7.1.5).
                return raw <= 0 || raw == 1005 || raw > Int(UInt16.max) ? nil : UInt16(raw)
            }
        }
    }

    /// The session's delegate: each task's close code as URLSession reports it, and the
    /// server-trust answer of ``LocalCATrust`` when there is one.
    final class Closes: NSObject, URLSessionWebSocketDelegate, Sendable {
        private struct State {
            /// Close codes by task; one per task the session made.
            var codes: [Int: Int] = [:]
            var waiters: [Int: [CheckedContinuation<Int?, Never>]] = [:]
        }

        private let trust: LocalCATrust?
        private let state = Locked(State())

        init(trust: LocalCATrust?) {
            self.trust = trust
        }

        func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
            guard let trust else {
                completionHandler(.performDefaultHandling, nil)
                return
            }
            trust.urlSession(session, didReceive: challenge, completionHandler: completionHandler)
        }

        func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
            settle(webSocketTask.taskIdentifier, closeCode.rawValue)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            settle(task.taskIdentifier, (task as? URLSessionWebSocketTask)?.closeCode.rawValue ?? 0)
        }

        /// Records the first code of task `id` and wakes its waiters; a code reported after
        /// the task ended with none (0: `didCompleteWithError` may come first) takes its place.
        private func settle(_ id: Int, _ code: Int) {
            let (settled, waiting) = state.withLock { state -> (Int, [CheckedContinuation<Int?, Never>]) in
                if (state.codes[id] ?? 0) == 0 { state.codes[id] = code }
                return (state.codes[id] ?? code, state.waiters.removeValue(forKey: id) ?? [])
            }
            for waiter in waiting { waiter.resume(returning: settled) }
        }

        /// Task `id`'s close code once reported, or nil after `seconds`.
        func code(of id: Int, within seconds: TimeInterval) async -> Int? {
            if let known = state.withLock({ $0.codes[id] }) { return known }
            // The timer starts once the waiter is registered, so it always finds it.
            let timer = Locked<Task<Void, Never>?>(nil)
            defer { timer.withLock { $0?.cancel() } }
            return await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
                let known = state.withLock { state -> Int? in
                    if let code = state.codes[id] { return code }
                    state.waiters[id, default: []].append(continuation)
                    return nil
                }
                if let known {
                    continuation.resume(returning: known)
                    return
                }
                let sleeper = Task { [state] in
                    guard (try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))) != nil else { return }
                    let waiting = state.withLock { $0.waiters.removeValue(forKey: id) ?? [] }
                    for waiter in waiting { waiter.resume(returning: nil) }
                }
                timer.withLock { $0 = sleeper }
            }
        }
    }
}
#endif

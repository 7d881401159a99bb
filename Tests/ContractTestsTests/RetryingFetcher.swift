import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A "resilient" GET as networking layers write one on completion handlers: any error is
/// retried twice, and the data task is tied to the Swift task's cancellation — so a
/// cancel (`URLError.cancelled`, -999) comes back as an error and is retried like one.
struct RetryingFetcher: Sendable {
    let session: URLSession

    func data(for request: URLRequest) async throws -> Data {
        let current = Locked<URLSessionDataTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                @Sendable func attempt(_ retriesLeft: Int) {
                    let task = session.dataTask(with: request) { data, response, error in
                        // A timeout has waited long enough; anything else is tried again.
                        if let error, (error as? URLError)?.code != .timedOut {
                            if retriesLeft > 0 { attempt(retriesLeft - 1) } else { continuation.resume(throwing: error) }
                            return
                        }
                        if let error {
                            continuation.resume(throwing: error)
                            return
                        }
                        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status), let data else {
                            continuation.resume(throwing: URLError(.badServerResponse))
                            return
                        }
                        continuation.resume(returning: data)
                    }
                    current.withLock { $0 = task }
                    task.resume()
                }
                attempt(2)
            }
        } onCancel: {
            current.current?.cancel()
        }
    }
}

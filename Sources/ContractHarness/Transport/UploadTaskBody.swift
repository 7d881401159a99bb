import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body of an upload task (`session.upload(for:from:)`, `uploadTask(with:fromFile:)`),
/// which the loading system keeps in the task, not in the request a protocol sees.
///
/// swift-corelibs-foundation keeps it in the task's `knownBody` (data, a file or a
/// stream), which `Mirror` reads. Apple's loading system exposes it nowhere: there the
/// transport declines upload tasks to a registration's listener
/// (`MockURLProtocol.canInit(with:)`), and fails those to an intercepted host (which must
/// not reach the real one), saying why, instead of sending an empty body.
enum UploadTaskBody {
    static func read(_ task: URLSessionTask) throws(URLError) -> Data {
        #if canImport(FoundationNetworking)
        if let body = knownBody(of: task) { return body }
        #endif
        throw URLError(.cannotDecodeRawData, userInfo: [
            NSLocalizedDescriptionKey: "MockServer's in-process transport cannot read this upload task's body on this platform; "
                + "send the body with a data task (URLRequest.httpBody), or run the check over .sockets",
        ])
    }

    #if canImport(FoundationNetworking)
    /// corelibs' `URLSessionTask.knownBody`: `.none`, `.data(DispatchData)`, `.file(URL)`
    /// or `.stream(InputStream)`. Nil when the task has no such field (a changed corelibs).
    static func knownBody(of task: URLSessionTask) -> Data? {
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let field = current.children.first(where: { $0.label == "knownBody" }) {
                return data(in: field.value)
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The bytes a `_Body` value (possibly wrapped in an Optional) stands for.
    private static func data(in value: Any) -> Data? {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return Data() }   // nil: no body
            return data(in: wrapped)
        }
        guard mirror.displayStyle == .enum else { return nil }
        guard let payload = mirror.children.first else { return Data() }          // .none
        switch payload.value {
        case let bytes as DispatchData: return Data(bytes)
        case let bytes as Data: return bytes
        case let file as URL: return (try? Data(contentsOf: file)) ?? Data()
        case let stream as InputStream: return MockURLProtocol.read(stream)
        default: return nil
        }
    }
    #endif
}

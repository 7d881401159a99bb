import Foundation
import MockCore

extension AdminAPI {
    /// The live WebSockets (`LiveSockets`), so a person can drive an app by hand:
    /// - `GET /__admin/sockets`: the open sockets, each with its stream's counts so far;
    /// - `POST /__admin/sockets/{id}/send` with `{"text": "…"}` or `{"base64": "…"}`: a text or
    ///   binary message into socket `{id}`;
    /// - `POST /__admin/sockets/{id}/close` with `{"code": 1000, "reason": "…"}` (both
    ///   optional; `"code": null` sends a close frame without a code): the server closes it.
    ///
    /// An id that is no open socket gets a 404 with a JSON reason. The socket's id is its
    /// upgrade request's journal id: `GET /__admin/requests/{id}` has its transcript.
    static func socketRoutes(_ engine: MockEngine) -> [Route] {
        let sockets = engine.sockets
        return [
            Route("admin.sockets", .get("/__admin/sockets")) { _, _ in
                let listed = sockets.open.map { socket -> JSONValue in
                    guard case .object(var object) = socket.json else { return socket.json }
                    if let stream = engine.journal.entry(socket.id)?.transcript?.summaryJSON { object["stream"] = stream }
                    return .object(object)
                }
                return .json(200, ["open": .number(Double(listed.count)), "capacity": .number(Double(sockets.capacity)),
                                   "sockets": .array(listed)])
            },
            Route("admin.sockets.send", .post("/__admin/sockets/{id}/send")) { request, match in
                let id: UInt64
                switch openSocket(match["id"], sockets) {
                case .success(let found): id = found
                case .failure(let rejected): return rejected.plan
                }
                let members: [String: JSONValue]
                switch body(request, example: #"{"text": "hello"} or {"base64": "AAEC"}"#) {
                case .success(let found): members = found
                case .failure(let rejected): return rejected.plan
                }
                let message: LiveSockets.Message
                switch (members["text"], members["base64"]) {
                case (.string(let text)?, nil):
                    message = .text(text)
                case (nil, .string(let encoded)?):
                    guard let bytes = Data(base64Encoded: encoded) else { return .error(400, "\"base64\" is not base64") }
                    message = .binary(bytes)
                default:
                    return .error(400, #"Send one of "text" (a string) or "base64" (bytes in base64), as {"text": "hello"}"#)
                }
                guard sockets.send(message, to: id) else { return unknownSocket(id) }
                return .json(202, ["sent": .string(message.description), "socket": .number(Double(id))])
            },
            Route("admin.sockets.close", .post("/__admin/sockets/{id}/close")) { request, match in
                let id: UInt64
                switch openSocket(match["id"], sockets) {
                case .success(let found): id = found
                case .failure(let rejected): return rejected.plan
                }
                var members: [String: JSONValue] = [:]
                if !request.body.isEmpty {
                    switch body(request, example: #"{"code": 1001, "reason": "going away"}"#) {
                    case .success(let found): members = found
                    case .failure(let rejected): return rejected.plan
                    }
                }
                var code: UInt16? = WebSocketCloseCode.normal
                switch members["code"] {
                case nil: break
                case .null?: code = nil
                case .number(let number)? where number == number.rounded() && WebSocketCloseCode.isSendable(Int(exactly: number) ?? 0):
                    code = UInt16(number)
                default:
                    return .error(400, "\"code\" must be a close code a server may send (1000-1003, 1007-1014, 3000-4999) or null")
                }
                var reason = ""
                switch members["reason"] {
                case nil: break
                case .string(let text)? where text.utf8.count <= 123: reason = text
                default: return .error(400, "\"reason\" must be a string of at most 123 bytes")
                }
                guard sockets.close(id, code: code, reason: reason) else { return unknownSocket(id) }
                return .json(202, ["closing": .number(Double(id)), "code": code.map { .number(Double($0)) } ?? .null, "reason": .string(reason)])
            },
        ]
    }

    /// The id in a socket route's path, when it names an open socket.
    private static func openSocket(_ text: String?, _ sockets: LiveSockets) -> Result<UInt64, Rejected> {
        guard let text, let id = UInt64(text) else {
            return .failure(Rejected(plan: .error(404, "\"\(text ?? "")\" is no socket id: GET /__admin/sockets lists them")))
        }
        guard sockets.socket(id) != nil else { return .failure(Rejected(plan: unknownSocket(id))) }
        return .success(id)
    }

    private static func unknownSocket(_ id: UInt64) -> ResponsePlan {
        .error(404, "No WebSocket \(id) is open: GET /__admin/sockets lists the open ones")
    }
}

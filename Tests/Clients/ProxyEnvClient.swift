// A client that knows nothing of the mock: it fetches the URL it is given with
// URLSession.shared and prints the status, then the body. ForwardProxyTests runs it with
// `swift ProxyEnvClient.swift URL` and `https_proxy` set, which URLSession on Linux follows.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let url = URL(string: CommandLine.arguments[1])!
let (data, response) = try await URLSession.shared.data(from: url)
print((response as? HTTPURLResponse)?.statusCode ?? 0)
print(String(decoding: data, as: UTF8.self))

import Foundation
import MockCore

/// What the admin API knows of the server's forward proxy: its port once bound (0 until
/// then, and without a proxy).
package final class ProxyFacts: Sendable {
    /// The proxy's port once bound; 0 before, and without a proxy.
    package let port = Locked(0)

    /// Facts of a proxy not bound yet.
    package init() {}

    /// The proxy as `/__admin/info` shows it; nil without one.
    package func describe(_ engine: MockEngine) -> JSONValue? {
        let port = port.current
        guard port > 0 else { return nil }
        return ["port": .number(Double(port)), "hosts": .array(MappedHosts.of(engine).map(JSONValue.string)),
                "pac": .string("\(AdminAPI.prefix)/proxy.pac")]
    }
}

extension AdminAPI {
    static let proxyPACPath = "/__admin/proxy.pac"

    /// `GET /__admin/proxy.pac`: a proxy auto-configuration file that sends the hosts the
    /// APIs answer to through the proxy and everything else direct. The proxy's address is
    /// the one the client reached the admin API on (a device on Wi-Fi gets the Mac's LAN
    /// address), with the proxy's port. A 404 with a reason when no proxy runs. Readable
    /// without the admin token: the system settings that fetch it cannot send one.
    static func proxyRoutes(_ engine: MockEngine, _ proxy: ProxyFacts?) -> [Route] {
        [
            Route("admin.proxy.pac", .get(proxyPACPath)) { request, _ in
                let port = proxy?.port.current ?? 0
                guard port > 0 else {
                    return .error(404, "No proxy runs on this server: start mock-server with --proxy-port PORT")
                }
                let host = URL(string: request.baseURL)?.host ?? "127.0.0.1"
                let address = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
                return .text(pacFile(hosts: MappedHosts.of(engine), proxy: address), contentType: "application/x-ns-proxy-autoconfig")
            },
        ]
    }

    /// The PAC file's text: `FindProxyForURL` compares the host, in lower case, with each
    /// mapped host (written as JSON strings, so no name can break out of the literal).
    static func pacFile(hosts: [String], proxy: String) -> String {
        let list = String(decoding: JSONCoding.encode(JSONValue.array(hosts.map(JSONValue.string))), as: UTF8.self)
        return """
        // mock-server: the hosts its APIs answer to go through its proxy; everything else goes direct.
        function FindProxyForURL(url, host) {
          var mapped = \(list);
          host = host.toLowerCase();
          for (var i = 0; i < mapped.length; i++) {
            if (host === mapped[i]) return "PROXY \(proxy)";
          }
          return "DIRECT";
        }

        """
    }
}

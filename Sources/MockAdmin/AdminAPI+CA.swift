import Foundation
import MockCore

/// The local CA for devices: `GET /__admin/ca.pem` and `GET /__admin/ca.mobileconfig`.
/// Served on both schemes (a device fetches it over plain HTTP before it trusts HTTPS);
/// a server without TLS answers 404 and says how to turn it on.
extension AdminAPI {
    static func caRoutes(_ ca: CACertificate?) -> [Route] {
        let notServing = ResponsePlan.error(404, "This server does not speak HTTPS, so it has no CA to give: start it with --tls (or --tls-port PORT)")
        return [
            Route("admin.ca.pem", .get("/__admin/ca.pem")) { _, _ in
                guard let ca else { return notServing }
                return ResponsePlan(status: 200, headers: ["Content-Type": "application/x-pem-file",
                                                          "Content-Disposition": "attachment; filename=\"mock-server-ca.pem\"",
                                                          "X-Certificate-SHA256": ca.fingerprint],
                                    body: Data(ca.pem.utf8))
            },
            Route("admin.ca.mobileconfig", .get("/__admin/ca.mobileconfig")) { _, _ in
                guard let ca else { return notServing }
                return ResponsePlan(status: 200, headers: ["Content-Type": MobileConfig.contentType,
                                                          "Content-Disposition": "attachment; filename=\"mock-server-ca.mobileconfig\""],
                                    body: MobileConfig.profile(for: ca))
            },
        ]
    }
}

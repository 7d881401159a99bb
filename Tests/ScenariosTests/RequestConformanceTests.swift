import Foundation
import BuiltInMockAPIs
import MockCore
import Testing

/// `RequestConformance` judges a request against the OpenAPI documents the mock serves
/// (#23): paths, methods, parameters, bodies and multipart parts, each violation with
/// where it is and why.
@Suite struct RequestConformanceTests {
    static let both = RequestConformance(documents: [OpenAPIDocuments.restaurant(.original), OpenAPIDocuments.openMarket(.jan2022)])
    static let vendor = "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1"

    static func violations(_ method: String, _ uri: String, headers: HeaderFields = [:], body: String = "") -> [String]? {
        both.violations(of: MockRequest(method: method, uri: uri, headers: headers, body: Data(body.utf8)))?.map(\.description)
    }

    @Test(arguments: [
        ("GET", "/categories"), ("GET", "/menu"), ("GET", "/menu?category=soups"), ("HEAD", "/menu?category=soups"),
        ("GET", "/images/1.png"), ("GET", "/healthChecker"), ("GET", "/api/products?page_no=1&items_per_page=10"),
        ("GET", "/api/products/16"),
    ])
    func conformingReadsHaveNoViolation(method: String, uri: String) {
        #expect(Self.violations(method, uri) == [])
    }

    @Test(arguments: ["/__admin/requests", "/no-such-route", "/api"])
    func whatIsNoAPIRouteIsNotJudged(path: String) {
        #expect(Self.violations("GET", path) == nil)
    }

    @Test(arguments: [
        ("GET", "/menu?categroy=soups", ["$.query.categroy: a query parameter the document does not have (it has category)"]),
        ("GET", "/categories?lang=en", ["$.query.lang: a query parameter the document does not have (it has none)"]),
        ("GET", "/api/products?page=1&items_per_page=10",
         ["$.query.page: a query parameter the document does not have (it has items_per_page, page_no)",
          "$.query.page_no: the required query parameter is missing"]),
        ("GET", "/api/products?page_no=x&items_per_page=10", ["$.query.page_no: expected integer, found a string \"x\""]),
        ("GET", "/api/products?page_no=1&items_per_page=1e3", ["$.query.items_per_page: expected integer, found a string \"1e3\""]),
        ("GET", "/api/products?page_no=0&items_per_page=10", ["$.query.page_no: 0 is below 1"]),
        ("GET", "/api/products/abc", ["$.path.id: expected integer, found a string \"abc\""]),
        ("PUT", "/menu", ["$.method: PUT is not an operation of /menu (the document has GET)"]),
    ] as [(String, String, [String])])
    func badParametersAreNamed(method: String, uri: String, expected: [String]) {
        #expect(Self.violations(method, uri) == expected)
    }

    @Test func orderBodies() {
        let json: HeaderFields = ["Content-Type": "application/json"]
        #expect(Self.violations("POST", "/order", headers: json, body: #"{"menuIds": [1, 5]}"#) == [])
        #expect(Self.violations("POST", "/order", headers: json) == ["$.body: the required body is missing (application/json)"])
        #expect(Self.violations("POST", "/order", headers: json, body: "menuIds=1") == [#"$.body: not JSON: "menuIds=1""#])
        #expect(Self.violations("POST", "/order", headers: ["Content-Type": "text/plain"], body: #"{"menuIds": [1]}"#)
                == [#"$.header.Content-Type: "text/plain" where the document takes application/json"#])
        #expect(Self.violations("POST", "/order", headers: json, body: #"{"menuIds": "1, 5"}"#)
                == [#"$.body.menuIds: expected array, found a string "1, 5""#])
        #expect(Self.violations("POST", "/order", headers: json, body: #"{"menuIds": [1.5]}"#)
                == ["$.body.menuIds[0]: expected integer, found a number 1.5"])
    }

    static func multipart(params: String?, paramsType: String? = "application/json", images: [(String, String)], extra: String? = nil) -> String {
        var body = ""
        if let params {
            body += "--B\r\nContent-Disposition: form-data; name=\"params\"\r\n" + (paramsType.map { "Content-Type: \($0)\r\n" } ?? "") + "\r\n\(params)\r\n"
        }
        for (index, (type, bytes)) in images.enumerated() {
            body += "--B\r\nContent-Disposition: form-data; name=\"images\"; filename=\"\(index).png\"\r\nContent-Type: \(type)\r\n\r\n\(bytes)\r\n"
        }
        if let extra { body += "--B\r\nContent-Disposition: form-data; name=\"\(extra)\"\r\n\r\nx\r\n" }
        return body + "--B--\r\n"
    }

    static let params = #"{"name": "Lamp", "descriptions": "A reading lamp", "price": 25000, "currency": "KRW", "secret": "mart1234"}"#

    @Test func multipartCreates() {
        let headers: HeaderFields = ["Content-Type": "multipart/form-data; boundary=B", "identifier": Self.vendor]
        #expect(Self.violations("POST", "/api/products", headers: headers, body: Self.multipart(params: Self.params, images: [("image/png", "P")])) == [])
        #expect(Self.violations("POST", "/api/products", headers: ["Content-Type": "multipart/form-data; boundary=B"],
                                body: Self.multipart(params: Self.params, images: [("image/png", "P")]))
                == ["$.header.identifier: the required header is missing"])
        #expect(Self.violations("POST", "/api/products", headers: ["Content-Type": "multipart/form-data; boundary=B", "identifier": "vendor-1"],
                                body: Self.multipart(params: Self.params, images: [("image/png", "P")]))
                == [#"$.header.identifier: "vendor-1" is not a UUID"#])
        let badPrice = Self.params.replacingOccurrences(of: "25000", with: "\"25,000\"")
        #expect(Self.violations("POST", "/api/products", headers: headers, body: Self.multipart(params: badPrice, images: [("image/png", "P")]))
                == [#"$.body.params.price: expected number, found a string "25,000""#])
        #expect(Self.violations("POST", "/api/products", headers: headers, body: Self.multipart(params: Self.params, paramsType: nil, images: [("image/png", "P")]))
                == ["$.body.params: no Content-Type where the document takes application/json"])
        #expect(Self.violations("POST", "/api/products", headers: headers, body: Self.multipart(params: nil, images: [("image/png", "P")]))
                == ["$.body.params: the required part is missing"])
        #expect(Self.violations("POST", "/api/products", headers: headers,
                                body: Self.multipart(params: Self.params, images: Array(repeating: ("image/png", "P"), count: 6)))
                == ["$.body.images: 6 parts, at most 5 expected"])
        #expect(Self.violations("POST", "/api/products", headers: headers, body: Self.multipart(params: Self.params, images: [("text/plain", "P")]))
                == ["$.body.images[0]: text/plain where the document takes image/png or image/jpeg"])
        #expect(Self.violations("POST", "/api/products", headers: headers,
                                body: Self.multipart(params: Self.params, images: [("image/png", "P")], extra: "photo"))
                == ["$.body.photo: a part the document does not have (it has images, params)"])
        #expect(Self.violations("POST", "/api/products", headers: headers, body: "--B\r\nnot closed")
                == ["$.body: not a multipart body: part 1: no blank line ends its headers within 16384 bytes"])
    }
}

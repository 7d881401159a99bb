import Foundation
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct OpenMarketLifecycleTests {
    @Test func createPageDetailPatchSecretDeleteRoundTrip() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            let (before, _) = try await client.page(1, 20)
            let totalBefore = try #require(try object(before)["total_count"] as? Int)

            // Create with 2 images.
            let (created, createResponse) = try await client.create()
            #expect(createResponse.statusCode == 201, "\(reason(created))")
            let product = try object(created)
            let id = try #require(product["id"] as? Int)
            #expect(product["name"] as? String == "Test Product")
            #expect(product["description"] as? String == "A product made by a test")
            #expect(product["bargain_price"] as? Int == 900)
            #expect(product["vendor_id"] as? Int == 1)
            #expect((product["created_at"] as? String)?.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{2}/) != nil)

            // It appears first on page 1, and the count grew.
            let (page, _) = try await client.page(1, 20)
            let pageObject = try object(page)
            #expect((pageObject["pages"] as? [[String: Any]])?.first?["id"] as? Int == id)
            #expect(pageObject["total_count"] as? Int == totalBefore + 1)

            // The detail has both images, and they download as the images uploaded.
            let (detail, _) = try await client.detail(id)
            let images = try #require(try object(detail)["images"] as? [[String: Any]])
            #expect(images.count == 2)
            let expected = [OpenMarketClient.image("1.png"), OpenMarketClient.image("item02.jpg")]
            for (image, bytes) in zip(images, expected) {
                let url = try #require((image["url"] as? String).flatMap(URL.init(string:)))
                #expect(url.absoluteString.hasPrefix(server.address.baseURL))
                let (downloaded, response) = try await HTTP.get(url)
                #expect(response.statusCode == 200)
                #expect(downloaded == bytes)
                #expect(ImageFormat(sniffing: downloaded) != nil)
                let etag = try #require(response.value(forHTTPHeaderField: "ETag"))
                #expect(try await HTTP.get(url, headers: ["If-None-Match": etag]).1.statusCode == 304)
                let thumbnail = try #require((image["thumbnail_url"] as? String).flatMap(URL.init(string:)))
                #expect(try await HTTP.get(thumbnail).1.statusCode == 200)
            }
            _ = try PNGCheck.validate(try await HTTP.get(URL(string: images[0]["url"] as! String)!).0)

            // Patch only the name and stock.
            let (patched, patchResponse) = try await client.send("PATCH", "/api/products/\(id)",
                json: #"{"name": "Renamed Product", "stock": 42, "secret": "mart1234"}"#)
            #expect(patchResponse.statusCode == 200, "\(reason(patched))")
            let patchedObject = try object(patched)
            #expect(patchedObject["name"] as? String == "Renamed Product")
            #expect(patchedObject["stock"] as? Int == 42)
            #expect(patchedObject["price"] as? Int == 1000)
            #expect(patchedObject["description"] as? String == "A product made by a test")
            // Page 1 was rendered before the edit; it shows the edit all the same.
            let (pageAfterPatch, _) = try await client.page(1, 20)
            #expect((try object(pageAfterPatch)["pages"] as? [[String: Any]])?.first?["name"] as? String == "Renamed Product")

            // Secret lookup, then delete with it.
            let (secretData, secretResponse) = try await client.send("POST", "/api/products/\(id)/secret", json: #"{"secret": "mart1234"}"#)
            #expect(secretResponse.statusCode == 200)
            let secret = String(decoding: secretData, as: UTF8.self)
            #expect(secret.count >= 16)
            let (deleted, deleteResponse) = try await client.send("DELETE", "/api/products/\(id)/\(secret)")
            #expect(deleteResponse.statusCode == 200)
            #expect(try object(deleted)["id"] as? Int == id)

            // Gone: detail 404, count back.
            #expect(try await client.detail(id).1.statusCode == 404)
            let (after, _) = try await client.page(1, 20)
            #expect(try object(after)["total_count"] as? Int == totalBefore)
        }
    }

    @Test func eachServerStartsFromTheFixtures() async throws {
        let a = try await TestServer.start()
        let b = try await TestServer.start()
        let (created, _) = try await OpenMarketClient(base: a.address.url).create()
        let id = try #require(try object(created)["id"] as? Int)
        #expect(try await OpenMarketClient(base: a.address.url).detail(id).1.statusCode == 200)
        #expect(try await OpenMarketClient(base: b.address.url).detail(id).1.statusCode == 404)
        await a.stop()
        await b.stop()
    }

    @Test func createdDatesComeFromTheInjectedClock() async throws {
        let clock = ManualTimeSource(Date(timeIntervalSince1970: 1_641_254_400))   // 2022-01-04 00:00 UTC
        let server = try await TestServer.start(timeSource: clock)
        clock.advance(by: 3600 * 3 + 0.25)
        let (created, _) = try await OpenMarketClient(base: server.address.url).create()
        #expect(try object(created)["created_at"] as? String == "2022-01-04T12:00:00.25")   // KST
        await server.stop()
    }

    @Test func late2022VariantUsesArchivedAndDeleteURI() async throws {
        try await withServer(openMarket: .late2022) { server in
            let client = OpenMarketClient(base: server.address.url)
            let params = OpenMarketClient.params(descriptionKey: "description")
            let (created, response) = try await client.create(params: params)
            #expect(response.statusCode == 201, "\(reason(created))")
            let id = try #require(try object(created)["id"] as? Int)
            #expect(try await client.send("POST", "/api/products/\(id)/secret", json: #"{"secret":"mart1234"}"#).1.statusCode == 404)
            let (uri, archived) = try await client.send("POST", "/api/products/\(id)/archived", json: #"{"secret":"mart1234"}"#)
            #expect(archived.statusCode == 200)
            let (_, deleted) = try await client.send("DELETE", "/api/products/\(String(decoding: uri, as: UTF8.self))")
            #expect(deleted.statusCode == 200)
            #expect(try await client.detail(id).1.statusCode == 404)

            // The January key is refused with a hint.
            let (old, oldResponse) = try await client.create(params: OpenMarketClient.params())
            #expect(oldResponse.statusCode == 400)
            #expect(reason(old).contains("this server version calls it \"description\""))
        }
    }
}

@Suite struct OpenMarketCreateErrorTests {
    @Test func identifierIsRequiredAndMustBeKnown() async throws {
        try await withServer { server in
            var client = OpenMarketClient(base: server.address.url)
            client.identifier = nil
            let (missing, response1) = try await client.create()
            #expect(response1.statusCode == 401)
            #expect(reason(missing).contains("identifier"))
            client.identifier = "not-a-vendor"
            let (unknown, response2) = try await client.create()
            #expect(response2.statusCode == 401)
            #expect(reason(unknown).contains("Unknown vendor identifier"))
        }
    }

    @Test(arguments: [
        (OpenMarketClient.params(secret: "wrong"), 401, "not the password"),
        (Data(#"{"descriptions":"A product made by a test","price":1,"currency":"KRW","secret":"mart1234"}"#.utf8), 400, "\"name\" is required"),
        (OpenMarketClient.params(price: "1000"), 400, "\"price\" must be a number, found a string"),
        (OpenMarketClient.params(name: "ab"), 400, "\"name\" must be 3–100 characters"),
        (OpenMarketClient.params(name: String(repeating: "n", count: 101)), 400, "\"name\" must be 3–100 characters"),
        (OpenMarketClient.params(description: "short"), 400, "\"descriptions\" must be 10–1000 characters"),
        (OpenMarketClient.params(currency: "EUR"), 400, "\"currency\" must be \"KRW\" or \"USD\""),
        (OpenMarketClient.params(price: 1000, discounted: 1001), 400, "\"discounted_price\" (1001.0) must not exceed \"price\""),
        (OpenMarketClient.params(stock: -1), 400, "\"stock\" must be zero or more"),
        (OpenMarketClient.params(stock: 1.5), 400, "\"stock\" must be an integer"),
        (OpenMarketClient.params(descriptionKey: "description"), 400, "\"description\" is not a known key"),
        (Data("not json".utf8), 400, "not valid JSON"),
    ])
    func badParamsSayWhichField(params: Data, status: Int, message: String) async throws {
        try await withServer { server in
            let (data, response) = try await OpenMarketClient(base: server.address.url).create(params: params)
            #expect(response.statusCode == status)
            #expect(reason(data).contains(message), "\(reason(data))")
        }
    }

    @Test func missingParamsPart() async throws {
        try await withServer { server in
            let (data, response) = try await OpenMarketClient(base: server.address.url).create(params: nil)
            #expect(response.statusCode == 400)
            #expect(reason(data).contains("Missing the \"params\" part"))
        }
    }

    @Test(arguments: [0, 6])
    func imageCountMustBeOneToFive(count: Int) async throws {
        try await withServer { server in
            let images = Array(repeating: (filename: "a.png", data: OpenMarketClient.image("1.png"), mime: "image/png"), count: count)
            let (data, response) = try await OpenMarketClient(base: server.address.url).create(images: images)
            #expect(response.statusCode == 400)
            #expect(reason(data).contains("Send 1 to 5 parts named \"images\", found \(count)"))
        }
    }

    @Test func fiveImagesAreFine() async throws {
        try await withServer { server in
            let images = Array(repeating: (filename: "a.jpg", data: OpenMarketClient.image("item02.jpg"), mime: "image/jpeg"), count: 5)
            let (data, response) = try await OpenMarketClient(base: server.address.url).create(images: images)
            #expect(response.statusCode == 201)
            #expect((try object(data)["images"] as? [Any])?.count == 5)
        }
    }

    @Test func imageOver300KBIs413() async throws {
        try await withServer { server in
            var big = OpenMarketClient.image("1.png")
            big.append(Data(repeating: 0, count: 301 * 1024))
            let (data, response) = try await OpenMarketClient(base: server.address.url).create(images: [("big.png", big, "image/png")])
            #expect(response.statusCode == 413)
            #expect(reason(data).contains("images[0] (big.png) is 301 KB; the limit is 300 KB"))
        }
    }

    @Test func bytesThatAreNotAnImageAre400() async throws {
        try await withServer { server in
            let (data, response) = try await OpenMarketClient(base: server.address.url)
                .create(images: [("a.png", OpenMarketClient.image("1.png"), "image/png"), ("fake.png", Data("GIF89a not really".utf8), "image/png")])
            #expect(response.statusCode == 400)
            #expect(reason(data).contains("images[1] (fake.png) is not a PNG or JPEG image"))
        }
    }

    @Test func notMultipartOrCutShortIs400() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            let (data1, response1) = try await client.create(rawBody: OpenMarketClient.params(), contentType: "application/json")
            #expect(response1.statusCode == 400)
            #expect(reason(data1).contains("multipart/form-data"))
            let full = OpenMarketClient.multipart(boundary: "XyZ", params: OpenMarketClient.params(), images: [("a.png", OpenMarketClient.image("1.png"), "image/png")])
            let (data2, response2) = try await client.create(rawBody: full.prefix(full.count - 12), contentType: "multipart/form-data; boundary=XyZ")
            #expect(response2.statusCode == 400)
            #expect(reason(data2).contains("cut short"))
            // Nothing was created by the failed attempts.
            #expect(server.engine.openMarket?.productCount == 126)
        }
    }
}

@Suite struct OpenMarketUpdateSecretDeleteErrorTests {
    // Product 16 belongs to vendor 1 (yagom-mart); product 17 to vendor 2 (dacodaco).
    @Test func patchErrors() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            #expect(try await client.send("PATCH", "/api/products/16", json: #"{"name":"Renamed","secret":"nope"}"#).1.statusCode == 401)
            #expect(try await client.send("PATCH", "/api/products/17", json: #"{"name":"Renamed","secret":"mart1234"}"#).1.statusCode == 403)
            #expect(try await client.send("PATCH", "/api/products/9999", json: #"{"name":"Renamed","secret":"mart1234"}"#).1.statusCode == 404)
            let (missing, missingResponse) = try await client.send("PATCH", "/api/products/16", json: #"{"name":"Renamed"}"#)
            #expect(missingResponse.statusCode == 400)
            #expect(reason(missing).contains("\"secret\" is required"))
            let (bad, badResponse) = try await client.send("PATCH", "/api/products/16", json: #"{"price":-5,"secret":"mart1234"}"#)
            #expect(badResponse.statusCode == 400)
            #expect(reason(bad).contains("\"price\" must be zero or more"))
            let (discount, discountResponse) = try await client.send("PATCH", "/api/products/16", json: #"{"discounted_price":999999,"secret":"mart1234"}"#)
            #expect(discountResponse.statusCode == 400)
            #expect(reason(discount).contains("discounted_price"))
            let (thumb, thumbResponse) = try await client.send("PATCH", "/api/products/16", json: #"{"thumbnail_id":1,"secret":"mart1234"}"#)
            #expect(thumbResponse.statusCode == 400)
            #expect(reason(thumb).contains("thumbnail_id"))
            var anonymous = client
            anonymous.identifier = nil
            #expect(try await anonymous.send("PATCH", "/api/products/16", json: #"{"name":"Renamed","secret":"mart1234"}"#).1.statusCode == 401)
            // Nothing changed.
            let (detail, _) = try await client.detail(16)
            #expect(try object(detail)["name"] as? String == "팥빙수 16")
        }
    }

    @Test func patchThumbnailChangesTheListThumbnail() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            let (patched, response) = try await client.send("PATCH", "/api/products/16", json: #"{"thumbnail_id":161,"secret":"mart1234"}"#)
            #expect(response.statusCode == 200)
            let product = try object(patched)
            let second = (product["images"] as? [[String: Any]])?[1]["thumbnail_url"] as? String
            #expect(product["thumbnail"] as? String == second)
        }
    }

    @Test func secretErrors() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            #expect(try await client.send("POST", "/api/products/16/secret", json: #"{"secret":"nope"}"#).1.statusCode == 401)
            #expect(try await client.send("POST", "/api/products/17/secret", json: #"{"secret":"mart1234"}"#).1.statusCode == 403)
            #expect(try await client.send("POST", "/api/products/16/secret", json: #"{"password":"mart1234"}"#).1.statusCode == 400)
            let (secret, ok) = try await client.send("POST", "/api/products/16/secret", json: #"{"secret":"mart1234"}"#)
            #expect(ok.statusCode == 200)
            #expect(String(decoding: secret, as: UTF8.self) == "secret-0016")
            #expect(ok.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain") == true)
        }
    }

    @Test func deleteErrors() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            func status(_ path: String) async throws -> Int { try await client.send("DELETE", path).1.statusCode }
            #expect(try await status("/api/products/16/wrong-secret") == 401)
            #expect(try await status("/api/products/17/secret-0017") == 403)
            #expect(try await status("/api/products/9999/secret-9999") == 404)
            let (_, stillThere) = try await client.detail(16)
            #expect(stillThere.statusCode == 200)
            #expect(try await status("/api/products/16/secret-0016") == 200)
            #expect(try await status("/api/products/16/secret-0016") == 404)
        }
    }
}

/// Found by `Fuzz/run.sh`: a byte of 0x80 or more in a part's header name crashed the
/// server inside MultipartKit (an index past its 128-entry table). Our own parser says 400.
@Suite struct MultipartHardeningTests {
    @Test func aNonASCIIHeaderNameIsA400AndTheServerLives() async throws {
        try await withServer { server in
            var body = Data("--B\r\nContent-Disposit".utf8)
            body.append(0x9E)
            body.append(Data("ion: form-data; name=\"params\"\r\nContent-Type: application/json\r\n\r\n{\"name\":\"x\"}\r\n--B--\r\n".utf8))
            var request = URLRequest(url: server.url("/api/products"))
            request.httpMethod = "POST"
            request.setValue("multipart/form-data; boundary=B", forHTTPHeaderField: "Content-Type")
            request.setValue(OpenMarketClient.vendor1.identifier, forHTTPHeaderField: "identifier")
            request.httpBody = body
            let (data, response) = try await HTTP.send(request)
            #expect(response.statusCode == 400, "\(String(decoding: data, as: UTF8.self))")
            #expect(String(decoding: data, as: UTF8.self).contains("not allowed in a token"))
            #expect(try await HTTP.get(server.url("/menu")).1.statusCode == 200)
        }
    }

    /// A body whose last delimiter lacks its closing hyphens (`--B` where `--B--` belongs)
    /// is refused as exactly that, not as a part without headers (#22); over the wire the
    /// 400 says so.
    @Test(arguments: ["\r\n--XyZ\r\n", "\r\n--XyZ", "\r\n--XyZ  \r\n\r\n"])
    func aMissingClosingBoundaryIsNamed(ending: String) async throws {
        let full = OpenMarketClient.multipart(boundary: "XyZ", params: OpenMarketClient.params(),
                                              images: [("a.png", OpenMarketClient.image("1.png"), "image/png")])
        let closing = Data("\r\n--XyZ--\r\n".utf8)
        #expect(full.suffix(closing.count) == closing)
        let body = full.prefix(full.count - closing.count) + Data(ending.utf8)
        let expected = "the closing boundary \"--XyZ--\" is missing: after part 2 the body ends with \"--XyZ\""
        #expect(throws: MultipartForm.Failure.self) { try MultipartForm.parse(body, contentType: "multipart/form-data; boundary=XyZ") }
        do {
            _ = try MultipartForm.parse(body, contentType: "multipart/form-data; boundary=XyZ")
        } catch {
            guard case .malformed(let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.hasPrefix(expected), "\(detail)")
        }
        try await withServer { server in
            let (data, response) = try await OpenMarketClient(base: server.address.url)
                .create(rawBody: body, contentType: "multipart/form-data; boundary=XyZ")
            #expect(response.statusCode == 400)
            #expect(reason(data).contains(expected), "\(reason(data))")
        }
    }

    @Test func utf8FileNamesInHeaderValuesAreStillAccepted() throws {
        let body = Data("--B\r\nContent-Disposition: form-data; name=\"images\"; filename=\"사진.png\"\r\nContent-Type: image/png\r\n\r\nPNG\r\n--B--\r\n".utf8)
        let form = try MultipartForm.parse(body, contentType: "multipart/form-data; boundary=B")
        #expect(form.parts.first?.filename == "사진.png")
    }
}

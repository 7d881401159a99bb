import Foundation
import MockCore

extension OpenMarketSimulator {
    func create(_ request: MockRequest) -> ResponsePlan {
        Rejection.answer { () throws(Rejection) in
            let vendor = try vendor(request)
            let form = try multipartForm(request)
            guard let paramsPart = form.parts.first(where: { $0.name == "params" }) else {
                throw Rejection(400, "Missing the \"params\" part (parts found: \(form.parts.map { $0.name ?? "?" }.joined(separator: ", ")))", field: "params")
            }
            let params = try ProductParams.parse(paramsPart.body, mode: .create, variant: variant).get()
            try Self.requireDiscount(params.discountedPrice ?? 0, atMost: params.price ?? 0)
            try Self.requirePassword(params.secret, vendor)
            let images = try uploadedImages(form)
            let entry = store.create(vendorID: vendor.id, params: params, images: images, now: timeSource.now())
            return .json(201, entry.detail.render(baseURL: request.baseURL))
        }
    }

    func multipartForm(_ request: MockRequest) throws(Rejection) -> MultipartForm {
        do {
            return try MultipartForm.parse(request.body, contentType: request.headers["Content-Type"])
        } catch {
            switch error {
            case .notMultipart, .noBoundary:
                throw Rejection(400, "Content-Type must be multipart/form-data with a boundary, found \"\(request.headers["Content-Type"] ?? "none")\"")
            case .malformed(let reason):
                throw Rejection(400, "Malformed multipart body: \(reason)")
            }
        }
    }

    func uploadedImages(_ form: MultipartForm) throws(Rejection) -> [OpenMarketStore.NewImage] {
        let parts = form.parts.filter { $0.name == "images" }
        guard (1...Self.maxImages).contains(parts.count) else {
            throw Rejection(400, "Send 1 to \(Self.maxImages) parts named \"images\", found \(parts.count)", field: "images")
        }
        var images: [OpenMarketStore.NewImage] = []
        for (index, part) in parts.enumerated() {
            let label = "images[\(index)]" + (part.filename.map { " (\($0))" } ?? "")
            guard part.body.count <= Self.maxImageBytes else {
                throw Rejection(413, "\(label) is \(part.body.count / 1024) KB; the limit is \(Self.maxImageBytes / 1024) KB", field: "images")
            }
            guard let format = ImageFormat(sniffing: part.body) else {
                throw Rejection(400, "\(label) is not a PNG or JPEG image", field: "images")
            }
            images.append(.init(data: part.body, format: format))
        }
        return images
    }

    static func requireDiscount(_ discounted: Double, atMost price: Double) throws(Rejection) {
        guard discounted <= price else {
            throw Rejection(400, "\"discounted_price\" (\(discounted)) must not exceed \"price\" (\(price))", field: "discounted_price")
        }
    }

    func update(_ request: MockRequest, id: String?) -> ResponsePlan {
        Rejection.answer { () throws(Rejection) in
            let vendor = try vendor(request)
            let product = try product(id).product
            let params = try ProductParams.parse(request.body, mode: .update, variant: variant).get()
            try Self.requireOwner(product, vendor)
            try Self.requirePassword(params.secret, vendor)
            let price = params.price ?? product.price
            let discounted = params.discountedPrice ?? product.discountedPrice
            try Self.requireDiscount(discounted, atMost: price)
            if let thumbnail = params.thumbnailID, !product.images.contains(where: { $0.id == thumbnail }) {
                let ids = product.images.map { String($0.id) }.joined(separator: ", ")
                throw Rejection(400, "\"thumbnail_id\" \(thumbnail) is not one of this product's images (\(ids))", field: "thumbnail_id")
            }
            let now = timeSource.now()
            guard let updated = store.update(product.id, { product in
                if let name = params.name { product.name = name }
                if let description = params.description { product.description = description }
                if let currency = params.currency { product.currency = currency }
                if let stock = params.stock { product.stock = stock }
                if let thumbnail = params.thumbnailID { product.thumbnailImageID = thumbnail }
                product.price = price
                product.discountedPrice = discounted
                product.issuedAt = now
            }) else { throw Rejection(404, "No product with id \(product.id)") }
            return .json(200, updated.detail.render(baseURL: request.baseURL))
        }
    }

    /// `/secret` (January 2022) answers the product secret; `/archived` (late 2022)
    /// answers the URI to delete the product with.
    func secret(_ request: MockRequest, id: String?) -> ResponsePlan {
        Rejection.answer { () throws(Rejection) in
            let vendor = try vendor(request)
            let product = try product(id).product
            guard let body = JSONValue(parsing: request.body), case .string(let password)? = body["secret"] else {
                throw Rejection(400, "Send JSON like {\"secret\": \"<vendor password>\"}", field: "secret")
            }
            try Self.requireOwner(product, vendor)
            try Self.requirePassword(password, vendor)
            return .text(variant == .late2022 ? product.deleteToken : product.secret)
        }
    }

    func delete(_ request: MockRequest, id: String?, secret: String) -> ResponsePlan {
        Rejection.answer { () throws(Rejection) in
            let vendor = try vendor(request)
            let product = try product(id).product
            try Self.requireOwner(product, vendor)
            guard secret == product.secret else {
                throw Rejection(401, "Wrong product secret for product \(product.id); get it from POST /api/products/\(product.id)/secret")
            }
            return try deleted(product.id, request)
        }
    }

    func deleteByURI(_ request: MockRequest, uri: String) -> ResponsePlan {
        Rejection.answer { () throws(Rejection) in
            let vendor = try vendor(request)
            guard let product = store.product(deleteToken: uri) else {
                throw Rejection(404, "No product has the delete URI \"\(uri)\"; get it from POST /api/products/{id}/archived")
            }
            try Self.requireOwner(product, vendor)
            return try deleted(product.id, request)
        }
    }

    private func deleted(_ id: Int, _ request: MockRequest) throws(Rejection) -> ResponsePlan {
        guard let entry = store.delete(id) else { throw Rejection(404, "No product with id \(id)") }
        return .json(200, entry.detail.render(baseURL: request.baseURL))
    }
}

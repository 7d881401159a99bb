import Foundation
import MockCore

/// The `params` of a create or the JSON of an update, checked field by field.
/// Every failure names the field and says what is wrong.
struct ProductParams {
    var name: String?
    var description: String?
    var price: Double?
    var currency: String?
    var discountedPrice: Double?
    var stock: Int?
    var thumbnailID: Int?
    /// The vendor's password.
    var secret: String

    static let nameLength = 3...100
    static let descriptionLength = 10...1000

    enum Mode { case create, update }

    static func parse(_ data: Data, mode: Mode, variant: OpenMarketVariant) -> Result<ProductParams, Rejection> {
        guard let json = JSONValue(parsing: data) else { return .failure(ParamsError(field: nil, "are not valid JSON").rejection) }
        guard case .object(let members) = json else {
            return .failure(ParamsError(field: nil, "must be a JSON object, found \(json.typeName)").rejection)
        }
        let descriptionKey = variant.descriptionKey
        let known: Set<String> = ["name", descriptionKey, "price", "currency", "discounted_price", "stock", "secret", "thumbnail_id"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            let hint = unknown == "description" || unknown == "descriptions" ? "; this server version calls it \"\(descriptionKey)\"" : ""
            return .failure(ParamsError(field: unknown, "is not a known key\(hint)").rejection)
        }
        do {
            let required = mode == .create
            var params = ProductParams(secret: "")
            params.name = try string(members, "name", required: required, length: nameLength)
            params.description = try string(members, descriptionKey, required: required, length: descriptionLength)
            params.price = try number(members, "price", required: required)
            params.currency = try string(members, "currency", required: required, length: 1...10)
            if let currency = params.currency, !OpenMarketFixtures.currencies.contains(currency) {
                throw ParamsError(field: "currency", "must be \"KRW\" or \"USD\", found \"\(currency)\"")
            }
            params.discountedPrice = try number(members, "discounted_price", required: false)
            params.stock = try integer(members, "stock")
            params.thumbnailID = mode == .update ? try integer(members, "thumbnail_id", allowNegative: true) : nil
            guard let secret = try string(members, "secret", required: true, length: 1...1000) else {
                throw ParamsError(field: "secret", "is required")
            }
            params.secret = secret
            return .success(params)
        } catch let error as ParamsError {
            return .failure(error.rejection)
        } catch {
            return .failure(Rejection(400, "The parameters are invalid: \(error)"))
        }
    }

    private static func string(_ members: [String: JSONValue], _ key: String, required: Bool, length: ClosedRange<Int>) throws -> String? {
        guard let value = members[key], value != .null else {
            if required { throw ParamsError(field: key, "is required") }
            return nil
        }
        guard case .string(let text) = value else { throw ParamsError(field: key, "must be a string, found \(value.typeName)") }
        guard length.contains(text.count) else {
            throw ParamsError(field: key, "must be \(length.lowerBound)–\(length.upperBound) characters, found \(text.count)")
        }
        return text
    }

    private static func number(_ members: [String: JSONValue], _ key: String, required: Bool) throws -> Double? {
        guard let value = members[key], value != .null else {
            if required { throw ParamsError(field: key, "is required") }
            return nil
        }
        guard case .number(let number) = value else { throw ParamsError(field: key, "must be a number, found \(value.typeName)") }
        guard number >= 0, number.isFinite, number < 1e15 else { throw ParamsError(field: key, "must be zero or more, found \(number)") }
        return number
    }

    private static func integer(_ members: [String: JSONValue], _ key: String, allowNegative: Bool = false) throws -> Int? {
        guard let value = members[key], value != .null else { return nil }
        guard let integer = value.intValue else { throw ParamsError(field: key, "must be an integer, found \(value.typeName)") }
        guard allowNegative || integer >= 0 else { throw ParamsError(field: key, "must be zero or more, found \(integer)") }
        return integer
    }
}

struct ParamsError: Error {
    let field: String?
    let message: String
    init(field: String?, _ message: String) {
        self.field = field
        self.message = message
    }
    var rejection: Rejection {
        Rejection(400, field.map { "\"\($0)\" \(message)" } ?? "The parameters \(message)", field: field)
    }
}

import Foundation
import MockCore

/// The versions of the Open Market training server clients were written against.
public enum OpenMarketVariant: String, Sendable, CaseIterable {
    /// January 2022: dates `2022-01-04T00:00:00.00`, create key `descriptions`,
    /// secret at `POST /api/products/{id}/secret`, delete at `DELETE /api/products/{id}/{secret}`.
    case jan2022 = "openmarket-2022-01"
    /// The older handout fixture's date format `2021-12-29 00:00:00.000`, which clients
    /// written for the live server fail to decode. Otherwise as January 2022.
    case legacyDates = "openmarket-legacy-dates"
    /// Late 2022 (as the server answered from autumn 2022): create/update key
    /// `description`, `POST /api/products/{id}/archived` answers a delete URI,
    /// `DELETE /api/products/{uri}` deletes; page keys in camelCase (`pageNo`,
    /// `itemsPerPage`, `totalCount`, `lastPage`, `hasNext`, `hasPrev`), list items with
    /// `description` and `vendorName`, money as `25000.0`, dates `2022-11-19T00:00:00`
    /// (Fixtures/README.md has the evidence).
    case late2022 = "openmarket-2022-late"

    /// The request key for the product description.
    public var descriptionKey: String { self == .late2022 ? "description" : "descriptions" }

    /// The training server's zone: Korea Standard Time (UTC+9, no daylight saving).
    static let offsetSeconds = 9 * 3600

    /// Formats dates the way this server version sent them.
    public func format(_ date: Date) -> String {
        let t = CivilTime(date, offsetSeconds: Self.offsetSeconds)
        let day = "\(padded(t.year, 4))-\(padded(t.month, 2))-\(padded(t.day, 2))"
        let time = "\(padded(t.hour, 2)):\(padded(t.minute, 2)):\(padded(t.second, 2))"
        switch self {
        case .legacyDates: return "\(day) \(time).\(padded(t.millisecond / 10 * 10, 3))"
        case .jan2022: return "\(day)T\(time).\(padded(t.millisecond / 10, 2))"
        case .late2022: return "\(day)T\(time)"
        }
    }

    /// The `DateFormatter` pattern of this version's dates (in Korea time).
    public var dateFormat: String {
        switch self {
        case .legacyDates: return "yyyy-MM-dd HH:mm:ss.SSS"
        case .jan2022: return "yyyy-MM-dd'T'HH:mm:ss.SS"
        case .late2022: return "yyyy-MM-dd'T'HH:mm:ss"
        }
    }

    /// The page's keys, in the order the server wrote them.
    public var pageKeys: PageKeys { self == .late2022 ? .camelCase : .snakeCase }

    /// Money written with a fraction (`25000.0`), as the late-2022 server's Python backend did;
    /// the January 2022 server wrote whole amounts as integers (`25000`).
    public var writesMoneyAsDecimals: Bool { self == .late2022 }

    /// List items carry `description` and `vendorName` (late 2022) besides the January keys.
    public var listItemsCarryDescription: Bool { self == .late2022 }

    /// The JSON keys of a product page, which changed case with the late-2022 server.
    public struct PageKeys: Sendable, Equatable {
        public let pageNo, itemsPerPage, totalCount, offset, limit, lastPage, hasNext, hasPrev, pages: String

        /// The January 2022 keys: `page_no`, `items_per_page`, `total_count`, ….
        public static let snakeCase = PageKeys(pageNo: "page_no", itemsPerPage: "items_per_page", totalCount: "total_count", offset: "offset",
                                               limit: "limit", lastPage: "last_page", hasNext: "has_next", hasPrev: "has_prev", pages: "pages")
        /// The late-2022 keys: `pageNo`, `itemsPerPage`, `totalCount`, ….
        public static let camelCase = PageKeys(pageNo: "pageNo", itemsPerPage: "itemsPerPage", totalCount: "totalCount", offset: "offset",
                                               limit: "limit", lastPage: "lastPage", hasNext: "hasNext", hasPrev: "hasPrev", pages: "pages")
        /// Every key, in the order the server wrote them.
        public var all: [String] { [pageNo, itemsPerPage, totalCount, offset, limit, lastPage, hasNext, hasPrev, pages] }
    }

    /// Parses the canonical fixture format `2022-01-04T00:00:00.00` (fraction optional, KST).
    /// Reads the fixed-width fields from the UTF-8 bytes, splitting no strings: it runs for
    /// every fixture date at start-up.
    public static func parseFixtureDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        // "yyyy-MM-ddTHH:mm:ss", then optionally "." and 1 to 3 digits.
        guard bytes.count == 19 || (21...23).contains(bytes.count) else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        let separators: [(Int, UInt8)] = [(4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")),
                                           (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":"))]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1 }),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var millisecond = 0
        if bytes.count > 19 {
            guard bytes[19] == UInt8(ascii: "."), let fraction = number(20..<bytes.count) else { return nil }
            millisecond = fraction * [100, 10, 1][bytes.count - 21]
        }
        return CivilTime.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                              millisecond: millisecond, offsetSeconds: offsetSeconds)
    }
}

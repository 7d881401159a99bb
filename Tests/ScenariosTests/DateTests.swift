import Foundation
import Testing
@testable import BuiltInMockAPIs
@testable import MockCore

@Suite struct DateTests {
    @Test(arguments: [
        (0.0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_641_254_400.9, "Tue, 04 Jan 2022 00:00:00 GMT"),
        (-86_400, "Wed, 31 Dec 1969 00:00:00 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
    ])
    func httpDatesRoundTrip(seconds: Double, text: String) {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: seconds)) == text)
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    @Test func httpDateRejectsOtherFormats() {
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 31 Feb 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("") == nil)
    }

    @Test func openMarketFormatsInKST() {
        let midnightKST = Date(timeIntervalSince1970: 1_641_222_000)   // 2022-01-04 00:00 KST
        #expect(OpenMarketVariant.jan2022.format(midnightKST) == "2022-01-04T00:00:00.00")
        #expect(OpenMarketVariant.legacyDates.format(midnightKST) == "2022-01-04 00:00:00.000")
        #expect(OpenMarketVariant.jan2022.format(midnightKST.addingTimeInterval(61.257)) == "2022-01-04T00:01:01.25")
        #expect(OpenMarketVariant.parseFixtureDate("2022-01-04T00:00:00.00") == midnightKST)
        #expect(OpenMarketVariant.parseFixtureDate("2022-01-04T00:01:01.25") == midnightKST.addingTimeInterval(61.25))
        #expect(OpenMarketVariant.parseFixtureDate("2022-01-04T00:00:00") == midnightKST)
    }

    @Test func fixtureDatesTakeOneToThreeFractionDigits() {
        let midnightKST = Date(timeIntervalSince1970: 1_641_222_000)
        #expect(OpenMarketVariant.parseFixtureDate("2022-01-04T00:00:00.5") == midnightKST.addingTimeInterval(0.5))
        #expect(OpenMarketVariant.parseFixtureDate("2022-01-04T00:00:00.007") == midnightKST.addingTimeInterval(0.007))
        #expect(OpenMarketVariant.parseFixtureDate("2021-12-31T23:59:59.99") == midnightKST.addingTimeInterval(-3 * 86_400 - 0.01))
    }

    @Test(arguments: ["2022-02-30T00:00:00.00", "2022-01-04 00:00:00.00", "2022-1-4T00:00:00", "yesterday", "2022-01-04T25:00:00.00",
                      "2022-01-04T00:00:00.1234", "2022-01-04T00:00:00.", "2022-01-04T00:00:00.a", "+022-01-04T00:00:00", "2022-01-04T00:00:00Z",
                      "２０22-01-04T00:00:00"])
    func badFixtureDatesAreRejected(text: String) {
        #expect(OpenMarketVariant.parseFixtureDate(text) == nil)
    }

    /// Delete tokens keep the form and the values they had before they were written byte
    /// by byte: seeded runs hand out the same tokens.
    @Test func deleteTokensAreSeededUUIDShapedHex() {
        var random = SeededRandom(seed: 7, stream: "openmarket"), reference = random
        for _ in 0..<50 {
            let a = reference.next(), b = reference.next()
            let hex = Array(StableHash.hex(a) + StableHash.hex(b))
            let expected = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
            #expect(OpenMarketStore.token(&random) == expected)
        }
    }

    @Test func civilTimeAgreesWithFoundationOverManyDays() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        var random = SeededRandom(seed: 11)
        for _ in 0..<500 {
            let seconds = Double(random.next() % 8_000_000_000) - 2_000_000_000
            let date = Date(timeIntervalSince1970: seconds)
            let expected = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
            let civil = CivilTime(date)
            #expect([civil.year, civil.month, civil.day, civil.hour, civil.minute, civil.second, civil.weekday + 1]
                    == [expected.year, expected.month, expected.day, expected.hour, expected.minute, expected.second, expected.weekday].map { $0 ?? -1 })
        }
    }

    @Test func iso8601RoundTripsWithMilliseconds() {
        let date = Date(timeIntervalSince1970: 1_795_374_651.576)
        #expect(ISO8601.format(date) == "2026-11-22T19:10:51.576Z")
        #expect(ISO8601.parse("2026-11-22T19:10:51.576Z").map { abs($0.timeIntervalSince(date)) < 0.001 } == true)
        #expect(ISO8601.parse("2026-11-22T19:10:51Z") == Date(timeIntervalSince1970: 1_795_374_651))
        #expect(ISO8601.parse("yesterday") == nil)
    }
}

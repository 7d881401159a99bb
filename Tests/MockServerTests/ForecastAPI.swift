import Foundation
import MockCore

/// A third built-in API as the built-in ones are written: this one file, and one line that
/// registers it (`BuiltInAPIs.all + [ForecastAPI()]`). A city's forecast is read by name;
/// the `metric` variant answers in Celsius, `imperial` in Fahrenheit.
struct ForecastAPI: MockAPI {
    var name: String { "forecast" }
    var variants: [String] { ["metric", "imperial"] }
    var hosts: [String] { ["api.forecast.example"] }

    /// The cities every server starts with, whatever the fixtures folder holds.
    func loadFixtures(from directory: URL) -> [String: Double]? {
        ["Seoul": 21.5, "Oslo": 10]
    }

    func serve(_ celsius: [String: Double], _ context: APIContext) -> ForecastSimulator {
        ForecastSimulator(celsius: celsius, fahrenheit: context.variant == "imperial")
    }
}

/// The forecast's answers: `GET /forecast/{city}`, or a 404 naming the city.
struct ForecastSimulator: ServedAPI {
    let celsius: [String: Double]
    let fahrenheit: Bool

    var routes: [Route] {
        [
            Route("forecast.city", .get("/forecast/{city}")) { _, match in
                guard let city = match["city"], let degrees = celsius[city] else { return .error(404, "no forecast for that city") }
                let temperature = fahrenheit ? degrees * 9 / 5 + 32 : degrees
                return .json(200, ["city": .string(city), "temperature": .number(temperature), "unit": .string(fahrenheit ? "F" : "C")])
            },
        ]
    }
}

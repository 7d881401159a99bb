import BuiltInMockAPIs
import Foundation
import MockCore
import MockFixtures
import Testing

/// A third API next to the built-in ones is its own file (`ForecastAPI.swift`) and one
/// registration line: the engine answers it, a server serves it over a socket, and the
/// built-in APIs still answer beside it.
@Suite struct ThirdBuiltInAPITests {
    /// The one line that registers it.
    static let apis: [any MockAPI] = BuiltInAPIs.all + [ForecastAPI()]

    @Test func theEngineAnswersTheThirdAPIBesideTheBuiltInOnes() throws {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory, apis: Self.apis))
        let forecast = engine.respond(to: MockRequest(method: "GET", uri: "/forecast/Seoul"))
        #expect(forecast.status == 200)
        #expect(forecast.answeredBy == "forecast.city")
        #expect(JSONValue(parsing: forecast.body) == ["city": "Seoul", "temperature": 21.5, "unit": "C"])
        #expect(engine.respond(to: MockRequest(method: "GET", uri: "/menu")).answeredBy == "restaurant.menu")
        #expect(engine.respond(to: MockRequest(method: "GET", uri: "/forecast/Atlantis")).status == 404)
        // Its own host answers with it alone, as a built-in API's hosts do.
        let menuOnItsHost = engine.respond(to: MockRequest(method: "GET", uri: "/menu", baseURL: "http://api.forecast.example"))
        #expect(menuOnItsHost.status == 404)
        let forecastOnItsHost = engine.respond(to: MockRequest(method: "GET", uri: "/forecast/Oslo", baseURL: "http://api.forecast.example:8080"))
        #expect(forecastOnItsHost.answeredBy == "forecast.city")
    }

    @Test func withoutTheLineTheBuiltInEngineDoesNotServeIt() throws {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
        let plan = engine.respond(to: MockRequest(method: "GET", uri: "/forecast/Seoul"))
        #expect(plan.status == 404)
        #expect(plan.answeredBy != "forecast.city")
    }

    @Test func itsVariantIsChosenByNameAsABuiltInAPIsIs() throws {
        let selection = try VariantSelection.parse(["forecast-imperial"], apis: Self.apis)
        let engine = try MockEngine(configuration: EngineConfiguration(
            fixturesDirectory: MockFixtures.directory, apis: Self.apis, variants: selection.chosen))
        let forecast = engine.respond(to: MockRequest(method: "GET", uri: "/forecast/Oslo"))
        #expect(JSONValue(parsing: forecast.body) == ["city": "Oslo", "temperature": 50, "unit": "F"])
    }

    @Test func aServerServesItOverASocketAndJournalsIt() async throws {
        let server = try await TestServer.start(apis: Self.apis)
        do {
            let (data, response) = try await HTTP.get(server.url("/forecast/Seoul"))
            #expect(response.statusCode == 200)
            #expect(JSONValue(parsing: data) == ["city": "Seoul", "temperature": 21.5, "unit": "C"])
            #expect(server.engine.journal.entries().contains { $0.answeredBy == "forecast.city" })
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

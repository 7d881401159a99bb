import ContractTests
import ContractTestsTesting
import Foundation
import OpenAPIDocumentAPI
import OpenAPIDocumentAPITesting
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Forty tests, each with a server of its own serving a 1.5 MB document through
/// `.mockServer(api:)`, as a user's test target has them: the document is read once for
/// all of them (`DocumentCache`), so each test's server costs what a built-in API's does.
/// `Benchmarks/documents.py` times this suite against one of its tests.
@Suite struct ManyDocumentServersTests {
    static let document = Documents.url("generated/large.json")

    private func list(_ collection: String) async throws {
        let (data, response) = try await URLSession.shared.data(from: MockServer.current.url("/large/" + collection + "?limit=2"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(JSONValue(parsing: data)?["items"]?.arrayValue != nil)
    }

    @Test(.mockServer(api: Self.document)) func servesAccounts00() async throws { try await list("accounts") }
    @Test(.mockServer(api: Self.document)) func servesBalances01() async throws { try await list("balances") }
    @Test(.mockServer(api: Self.document)) func servesChannels02() async throws { try await list("channels") }
    @Test(.mockServer(api: Self.document)) func servesDevices03() async throws { try await list("devices") }
    @Test(.mockServer(api: Self.document)) func servesEvents04() async throws { try await list("events") }
    @Test(.mockServer(api: Self.document)) func servesFeatures05() async throws { try await list("features") }
    @Test(.mockServer(api: Self.document)) func servesGroups06() async throws { try await list("groups") }
    @Test(.mockServer(api: Self.document)) func servesHistorys07() async throws { try await list("historys") }
    @Test(.mockServer(api: Self.document)) func servesInvoices08() async throws { try await list("invoices") }
    @Test(.mockServer(api: Self.document)) func servesJournals09() async throws { try await list("journals") }
    @Test(.mockServer(api: Self.document)) func servesLedgers10() async throws { try await list("ledgers") }
    @Test(.mockServer(api: Self.document)) func servesMessages11() async throws { try await list("messages") }
    @Test(.mockServer(api: Self.document)) func servesNotices12() async throws { try await list("notices") }
    @Test(.mockServer(api: Self.document)) func servesOrders13() async throws { try await list("orders") }
    @Test(.mockServer(api: Self.document)) func servesPayments14() async throws { try await list("payments") }
    @Test(.mockServer(api: Self.document)) func servesQuotas15() async throws { try await list("quotas") }
    @Test(.mockServer(api: Self.document)) func servesReports16() async throws { try await list("reports") }
    @Test(.mockServer(api: Self.document)) func servesSessions17() async throws { try await list("sessions") }
    @Test(.mockServer(api: Self.document)) func servesTickets18() async throws { try await list("tickets") }
    @Test(.mockServer(api: Self.document)) func servesUsages19() async throws { try await list("usages") }
    @Test(.mockServer(api: Self.document)) func servesAccount1s20() async throws { try await list("account1s") }
    @Test(.mockServer(api: Self.document)) func servesBalance1s21() async throws { try await list("balance1s") }
    @Test(.mockServer(api: Self.document)) func servesChannel1s22() async throws { try await list("channel1s") }
    @Test(.mockServer(api: Self.document)) func servesDevice1s23() async throws { try await list("device1s") }
    @Test(.mockServer(api: Self.document)) func servesEvent1s24() async throws { try await list("event1s") }
    @Test(.mockServer(api: Self.document)) func servesFeature1s25() async throws { try await list("feature1s") }
    @Test(.mockServer(api: Self.document)) func servesGroup1s26() async throws { try await list("group1s") }
    @Test(.mockServer(api: Self.document)) func servesHistory1s27() async throws { try await list("history1s") }
    @Test(.mockServer(api: Self.document)) func servesInvoice1s28() async throws { try await list("invoice1s") }
    @Test(.mockServer(api: Self.document)) func servesJournal1s29() async throws { try await list("journal1s") }
    @Test(.mockServer(api: Self.document)) func servesLedger1s30() async throws { try await list("ledger1s") }
    @Test(.mockServer(api: Self.document)) func servesMessage1s31() async throws { try await list("message1s") }
    @Test(.mockServer(api: Self.document)) func servesNotice1s32() async throws { try await list("notice1s") }
    @Test(.mockServer(api: Self.document)) func servesOrder1s33() async throws { try await list("order1s") }
    @Test(.mockServer(api: Self.document)) func servesPayment1s34() async throws { try await list("payment1s") }
    @Test(.mockServer(api: Self.document)) func servesQuota1s35() async throws { try await list("quota1s") }
    @Test(.mockServer(api: Self.document)) func servesReport1s36() async throws { try await list("report1s") }
    @Test(.mockServer(api: Self.document)) func servesSession1s37() async throws { try await list("session1s") }
    @Test(.mockServer(api: Self.document)) func servesTicket1s38() async throws { try await list("ticket1s") }
    @Test(.mockServer(api: Self.document)) func servesUsage1s39() async throws { try await list("usage1s") }
}

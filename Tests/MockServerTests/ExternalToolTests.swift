import TestSupport
import Testing

/// The check a test that runs an outside tool makes first: run it, skip it with the line
/// that names the tool and its install commands, or, in CI, fail it.
@Suite struct ExternalToolTests {
    static let absent = ExternalTool.command("mock-server-no-such-tool", linux: "apt-get install no-such-tool", macOS: "brew install no-such-tool")
    static let present = ExternalTool.command("sh", linux: "apt-get install dash", macOS: nil)

    @Test func aCommandIsFoundOnThePathOrNot() {
        #expect(!Self.absent.isAvailable)
        #expect(Self.present.isAvailable)
        #expect(ExternalTool.path(of: "mock-server-no-such-tool") == nil)
        #expect(ExternalTool.path(of: "sh")?.hasSuffix("/sh") == true)
    }

    @Test(.requires(.python3)) func aPythonModuleIsImportableOrNot() {
        #expect(ExternalTool.pythonModule("sys", linux: "-", macOS: "-").isAvailable)
        #expect(!ExternalTool.pythonModule("mock_server_no_such_module", linux: "-", macOS: "-").isAvailable)
    }

    @Test func aMissingToolIsSkippedWithOneLineNamingItAndItsInstall() {
        let line = "mock-server-no-such-tool is not installed; install it with apt-get install no-such-tool (Linux) or brew install no-such-tool (macOS)"
        #expect(ToolCheck([Self.absent], ci: false) == .skip(line))
        #expect(!line.contains("\n"))
    }

    @Test func aMissingToolFailsInCI() {
        guard case .fail(let line) = ToolCheck([Self.absent], ci: true) else {
            Issue.record("a CI run with a missing tool must fail, not skip or run")
            return
        }
        #expect(line.hasPrefix(Self.absent.missingLine))
        #expect(line.contains("CI=true"))
    }

    @Test func onlyTheMissingToolsAreNamed() {
        #expect(ToolCheck([Self.present], ci: false) == .run)
        #expect(ToolCheck([Self.present], ci: true) == .run)
        #expect(ToolCheck([], ci: true) == .run)
        #expect(ToolCheck([Self.present, Self.absent], ci: false) == .skip(Self.absent.missingLine))
        let other = ExternalTool(name: "other", linux: "apt-get install other", macOS: nil, isAvailable: false)
        #expect(ToolCheck([Self.absent, other], ci: false) == .skip(Self.absent.missingLine + "; " + other.missingLine))
        #expect(other.missingLine == "other is not installed; install it with apt-get install other (Linux)")
    }

    @Test func toolRunRefusesAToolThatIsNotThere() async {
        await #expect(throws: MissingTool.self) { try await Tool.run("mock-server-no-such-tool", []) }
    }

    #if compiler(>=6.2)
    /// The trait itself (`ConditionTrait.evaluate()` is Swift 6.2): disabled with the line
    /// as its comment outside CI, throwing in CI, enabled where the tool is there.
    @Test func theTraitSkipsFailsOrRuns() async throws {
        let skipped = ConditionTrait.requires([Self.absent], ci: false)
        #expect(try await skipped.evaluate() == false)
        #expect(skipped.comments.map(\.rawValue) == [Self.absent.missingLine])
        await #expect(throws: MissingTool.self) { try await ConditionTrait.requires([Self.absent], ci: true).evaluate() }
        #expect(try await ConditionTrait.requires([Self.present], ci: true).evaluate())
    }
    #endif
}

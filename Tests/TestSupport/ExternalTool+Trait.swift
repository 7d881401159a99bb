import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test only where every one of `tools` is installed. Where one is missing the
    /// test is skipped, the skip's comment naming the tool and how to install it; in a CI
    /// run (`CI=true`) the test fails with that line instead, so CI never skips a test
    /// for a tool it forgot to install.
    ///
    ///     @Test(.requires(.curl, .nghttp)) func answersAreFrames() async throws { … }
    public static func requires(_ tools: ExternalTool...) -> Self {
        requires(tools, ci: ExternalTool.isCI)
    }

    /// `requires(_:)` with the CI flag given rather than read from the environment.
    public static func requires(_ tools: [ExternalTool], ci: Bool) -> Self {
        switch ToolCheck(tools, ci: ci) {
        case .run:
            return .enabled(if: true)
        case .skip(let line):
            return .enabled(if: false, Comment(rawValue: line))
        case .fail(let line):
            // A condition that throws is recorded as the test's issue and the test does not run.
            return .enabled(Comment(rawValue: line)) { throw MissingTool(line) }
        }
    }
}

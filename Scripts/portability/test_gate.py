"""Tests of the portability gate: small packages made in a temporary folder.

    python3 -m unittest discover -s Scripts/portability -p 'test_*.py'

Each test plants one thing and asserts exactly which (file, line, class) the gate reports,
so a check that stops working, or starts reporting too much, fails a test.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gate  # noqa: E402

APIS = os.path.join(HERE, "apis.json")

MANIFEST = """\
// swift-tools-version:{tools}
import PackageDescription

let package = Package(
    name: "Demo",
    platforms: [{platforms}],
    products: [
        .library(name: "DemoKit", targets: ["DemoKit"]),
        .executable(name: "demo", targets: ["demo"]),
    ],
    targets: [
        .target(name: "DemoKit", dependencies: ["DemoCore"]),
        // Reached only through DemoKit's dependencies: still a library target.
        .target(name: "DemoCore", path: "Sources/Core"),
        // No library product reaches it.
        .target(name: "DemoTools"),
        .executableTarget(name: "demo", dependencies: ["DemoKit"]),
        .testTarget(name: "DemoKitTests", dependencies: ["DemoKit"]),
    ]
)
"""

CLEAN = {
    "Sources/DemoKit/Kit.swift": """\
        import Foundation
        #if canImport(FoundationNetworking)
        import FoundationNetworking
        #endif

        public struct Kit {
            public init() {}
            public func decode(_ bytes: [UInt8]) -> String {
                String(decoding: bytes, as: UTF8.self)
            }
        }
        """,
    "Sources/Core/Core.swift": "public enum Core { public static let name = \"core\" }\n",
    "Sources/DemoTools/Tools.swift": "enum Tools {}\n",
    "Sources/demo/main.swift": "import DemoKit\nprint(Kit().decode([104, 105]))\n",
    "Tests/DemoKitTests/KitTests.swift": """\
        import Testing
        @testable import DemoKit

        @Test func decodes() {
            #expect(Kit().decode([104, 105]) == "hi")
        }
        """,
}


class GateTestCase(unittest.TestCase):
    tools = "6.1"
    platforms = ".macOS(.v13), .iOS(.v16), .tvOS(.v16)"

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = self._tmp.name
        self.write("Package.swift", MANIFEST.format(tools=self.tools, platforms=self.platforms), dedent=False)
        for path, text in CLEAN.items():
            self.write(path, text)

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, rel, text, dedent=True):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text) if dedent else text)

    def set_manifest(self, tools=None, platforms=None):
        self.write("Package.swift", MANIFEST.format(tools=tools or self.tools, platforms=platforms or self.platforms), dedent=False)

    def violations(self):
        _, found, _ = gate.run(self.root, APIS)
        return found

    def found(self):
        return {(v.path, v.line, v.cls) for v in self.violations()}

    def assertFound(self, *expected):
        self.assertEqual(self.found(), set(expected), "\n".join(v.render() for v in self.violations()))


class CleanTree(GateTestCase):
    def test_clean_tree_passes_with_exit_status_0(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "gate.py"), self.root],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertEqual(out.stdout.strip().splitlines()[-1], "portability gate: 5 files, 0 violations")

    def test_a_violation_makes_the_gate_exit_1_with_one_line_per_violation(self):
        self.write("Sources/DemoKit/Mutexes.swift", """\
            import Synchronization
            let counter = Mutex<Int>(0)
            """)
        out = subprocess.run([sys.executable, os.path.join(HERE, "gate.py"), self.root],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        lines = out.stdout.strip().splitlines()
        self.assertTrue(lines[0].startswith("Sources/DemoKit/Mutexes.swift:1: [availability] import Synchronization needs macOS 15.0 / iOS 18.0 / tvOS 18.0"), lines)
        self.assertTrue(lines[1].startswith("Sources/DemoKit/Mutexes.swift:2: [availability] Mutex needs macOS 15.0 / iOS 18.0 / tvOS 18.0 (declared minimums macOS 13.0 / iOS 16.0 / tvOS 16.0)"), lines)
        self.assertEqual(lines[-1], "portability gate: 6 files, 2 violations")

    def test_list_apis_prints_the_table_with_sources(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "gate.py"), "--list-apis"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        self.assertIn("String(validating:as:)", out.stdout)
        self.assertIn("source: https://developer.apple.com/documentation/swift/string/init(validating:as:)", out.stdout)


class Availability(GateTestCase):
    def test_an_api_newer_than_the_minimums_outside_a_guard_fails(self):
        self.write("Sources/DemoKit/Parse.swift", """\
            func parse(_ bytes: [UInt8]) -> String? {
                String(validating: bytes, as: UTF8.self)
            }
            """)
        self.assertFound(("Sources/DemoKit/Parse.swift", 2, "availability"))
        self.assertIn("String(validating:as:) needs macOS 15.0 / iOS 18.0 / tvOS 18.0 (declared minimums macOS 13.0 / iOS 16.0 / tvOS 16.0)",
                      self.violations()[0].message)

    def test_a_guard_that_covers_every_declared_platform_passes(self):
        self.write("Sources/DemoKit/Parse.swift", """\
            func parse(_ bytes: [UInt8]) -> String? {
                if #available(macOS 15, iOS 18, tvOS 18, *), let first = bytes.first(where: { $0 > 0 }) {
                    _ = first
                    return String(validating: bytes, as: UTF8.self)
                }
                return String(decoding: bytes, as: UTF8.self)
            }
            """)
        self.assertFound()

    def test_a_guard_that_leaves_out_ios_fails_for_ios_and_tvos(self):
        self.write("Sources/DemoKit/Parse.swift", """\
            func parse(_ bytes: [UInt8]) -> String? {
                if #available(macOS 15, *) {
                    return String(validating: bytes, as: UTF8.self)
                }
                return nil
            }
            """)
        self.assertFound(("Sources/DemoKit/Parse.swift", 3, "availability"))
        message = self.violations()[0].message
        self.assertIn("needs iOS 18.0 / tvOS 18.0", message)
        self.assertNotIn("macOS 15.0 /", message)

    def test_the_else_branch_of_an_available_check_is_not_covered(self):
        self.write("Sources/DemoKit/Parse.swift", """\
            func parse(_ bytes: [UInt8]) -> String? {
                if #available(macOS 15, iOS 18, tvOS 18, *) {
                    return nil
                } else {
                    return String(validating: bytes, as: UTF8.self)
                }
            }
            """)
        self.assertFound(("Sources/DemoKit/Parse.swift", 5, "availability"))

    def test_available_on_a_function_covers_its_body_and_nothing_after(self):
        self.write("Sources/DemoKit/Executor.swift", """\
            import Dispatch

            @available(macOS 15.0, iOS 18.0, tvOS 18.0, *)
            final class QueueExecutor: TaskExecutor {
                let queue = DispatchQueue(label: "q")
                func enqueue(_ job: consuming ExecutorJob) {
                    let job = UnownedJob(job)
                    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
                }
            }

            @available(macOS 15.0, iOS 18.0, tvOS 18.0, *)
            func start(_ e: QueueExecutor) -> Task<Void, Never> {
                Task(executorPreference: e) {}
            }

            func startWithoutCheck(_ e: any TaskExecutor) {}
            """)
        self.assertFound(("Sources/DemoKit/Executor.swift", 17, "availability"))

    def test_available_long_form_and_protocol_requirements(self):
        self.write("Sources/DemoKit/Wide.swift", """\
            protocol Wide {
                @available(macOS 15, iOS 18, tvOS 18, *)
                func value() -> Int128
                func other() -> Int
            }
            @available(macOS, introduced: 15)
            @available(iOS, introduced: 18)
            @available(tvOS, introduced: 18)
            func make() -> UInt128 { 1 }
            struct Impl {
                func other() -> Int { Int(Int128(1)) }
            }
            """)
        self.assertFound(("Sources/DemoKit/Wide.swift", 11, "availability"))

    def test_guard_available_covers_the_rest_of_its_scope_only(self):
        self.write("Sources/DemoKit/Parse.swift", """\
            func parse(_ bytes: [UInt8]) -> String? {
                guard #available(macOS 15, iOS 18, tvOS 18, *) else {
                    return String(validating: bytes, as: UTF8.self)
                }
                let text = String(validating: bytes, as: UTF8.self)
                return text
            }
            func later(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
            """)
        self.assertFound(("Sources/DemoKit/Parse.swift", 3, "availability"),
                         ("Sources/DemoKit/Parse.swift", 8, "availability"))

    def test_unavailable_covers_the_else_branch(self):
        self.write("Sources/DemoKit/Parse.swift", """\
            func parse(_ bytes: [UInt8]) -> String? {
                if #unavailable(macOS 15, iOS 18, tvOS 18) {
                    return String(validating: bytes, as: UTF8.self)
                } else {
                    return String(validating: bytes, as: UTF8.self)
                }
            }
            """)
        self.assertFound(("Sources/DemoKit/Parse.swift", 3, "availability"))

    def test_unavailable_attribute_excludes_the_platforms(self):
        self.write("Sources/DemoKit/Legacy.swift", """\
            @available(*, unavailable)
            struct Gone { let wide = Int128(1) }
            @available(iOS, unavailable)
            @available(tvOS, unavailable)
            func macOnly() -> Int128 { 1 }
            """)
        self.assertFound(("Sources/DemoKit/Legacy.swift", 5, "availability"))
        self.assertIn("needs macOS 15.0", self.violations()[0].message)
        self.assertNotIn("iOS", self.violations()[0].message.split("(declared")[0])

    def test_an_if_region_false_for_a_platform_is_not_checked_for_it(self):
        self.write("Sources/DemoKit/Parse.swift", """\
            #if os(macOS)
            func parse(_ bytes: [UInt8]) -> String? {
                if #available(macOS 15, *) { return String(validating: bytes, as: UTF8.self) }
                return nil
            }
            #elseif os(Linux)
            func parse(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
            #else
            func parse(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
            #endif
            """)
        self.assertFound(("Sources/DemoKit/Parse.swift", 9, "availability"))
        self.assertIn("needs iOS 18.0 / tvOS 18.0", self.violations()[0].message)

    def test_text_in_comments_and_strings_never_counts(self):
        self.write("Sources/DemoKit/Docs.swift", """\
            /// `String(validating:as:)` would need macOS 15, and so would Mutex<Int>.
            /* a block /* nested: Int128 */ still a comment: TaskExecutor */
            let a = "String(validating: b, as: UTF8.self) Process() homeDirectoryForCurrentUser"
            let b = #"raw "quoted" Mutex<Int>(0) \\(Int128(1))"#
            let c = \"\"\"
                Int128(2) import Glibc "Process()"
                \"\"\"
            let d = /Mutex<Int>\\//
            // import FoundationNetworking
            """)
        self.assertFound()

    def test_code_inside_an_interpolation_counts(self):
        self.write("Sources/DemoKit/Show.swift", """\
            let shown = "value \\(Int128(1))"
            let rawShown = #"value \\#(Int128(2))"#
            """)
        self.assertFound(("Sources/DemoKit/Show.swift", 1, "availability"),
                         ("Sources/DemoKit/Show.swift", 2, "availability"))

    def test_a_platform_declared_as_a_string_version(self):
        self.set_manifest(platforms='.macOS("15.0"), .iOS("18.0"), .tvOS(.v18)')
        self.write("Sources/DemoKit/Wide.swift", "let wide = Int128(1)\n")
        self.assertFound()

    def test_an_undeclared_platform_is_not_checked(self):
        self.set_manifest(platforms=".macOS(.v15)")
        self.write("Sources/DemoKit/Wide.swift", "let wide = Int128(1)\n")
        self.assertFound()

    def test_split_with_a_collection_separator_but_not_a_character(self):
        self.set_manifest(platforms=".macOS(.v12), .iOS(.v15), .tvOS(.v15)")
        self.write("Sources/DemoKit/Split.swift", """\
            let csv = "a, b".split(separator: ", ")
            let lines = "a\\r\\nb".split(separator: "\\r\\n")
            let words = "a b".split(separator: " ")
            """)
        self.assertFound(("Sources/DemoKit/Split.swift", 1, "availability"))

    def test_a_suppression_comment_exempts_one_line(self):
        self.write("Sources/DemoKit/Sync.swift", """\
            import Synchronization // portability-gate: allow availability
            let wide = Int128(1)
            """)
        self.assertFound(("Sources/DemoKit/Sync.swift", 2, "availability"))

    def test_a_type_the_package_declares_itself_shadows_the_api(self):
        self.write("Sources/DemoKit/Lock.swift", """\
            final class Mutex<Value> { init(_ value: Value) {} }
            let lock = Mutex(0)
            """)
        self.assertFound()


class NonIOSAPIs(GateTestCase):
    LIB = """\
        import Foundation

        public func home() -> URL {
            FileManager.default.homeDirectoryForCurrentUser
        }

        public func run(_ tool: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            try process.run()
            _ = ProcessInfo.processInfo.processIdentifier
        }
        """

    def test_macos_only_apis_in_a_library_target_fail(self):
        self.write("Sources/DemoKit/Home.swift", self.LIB)
        self.assertFound(("Sources/DemoKit/Home.swift", 4, "non-ios-api"),
                         ("Sources/DemoKit/Home.swift", 8, "non-ios-api"))
        messages = [v.message for v in self.violations()]
        self.assertTrue(any(m.startswith("FileManager.homeDirectoryForCurrentUser is unavailable on iOS / tvOS; library target 'DemoKit'") for m in messages), messages)
        self.assertTrue(any(m.startswith("Process (NSTask) is unavailable on iOS / tvOS") for m in messages), messages)

    def test_a_target_reached_only_through_a_librarys_dependencies_is_a_library_target(self):
        self.write("Sources/Core/Home.swift", self.LIB)
        self.assertFound(("Sources/Core/Home.swift", 4, "non-ios-api"),
                         ("Sources/Core/Home.swift", 8, "non-ios-api"))

    def test_the_same_in_an_executable_target_passes(self):
        self.write("Sources/demo/Home.swift", self.LIB)
        self.assertFound()

    def test_the_same_in_a_target_no_library_reaches_or_a_test_target_passes(self):
        self.write("Sources/DemoTools/Home.swift", self.LIB)
        self.write("Tests/DemoKitTests/Home.swift", self.LIB)
        self.assertFound()

    def test_behind_if_os_macos_passes(self):
        self.write("Sources/DemoKit/Home.swift", """\
            import Foundation
            public func home() -> URL? {
                #if os(macOS)
                return FileManager.default.homeDirectoryForCurrentUser
                #elseif os(Linux)
                let p = Process()
                _ = p
                return FileManager.default.homeDirectoryForCurrentUser
                #else
                return nil
                #endif
            }
            """)
        self.assertFound()

    def test_canimport_appkit_and_uikit_select_platforms(self):
        self.write("Sources/DemoKit/Home.swift", """\
            import Foundation
            #if canImport(AppKit)
            let a = FileManager.default.homeDirectoryForCurrentUser
            #elseif canImport(UIKit)
            let b = FileManager.default.homeDirectoryForCurrentUser
            #endif
            #if DEBUG
            let c = FileManager.default.homeDirectoryForCurrentUser
            #endif
            """)
        self.assertFound(("Sources/DemoKit/Home.swift", 5, "non-ios-api"),
                         ("Sources/DemoKit/Home.swift", 8, "non-ios-api"))

    def test_only_a_macos_declaration_makes_macos_only_apis_fine(self):
        self.set_manifest(platforms=".macOS(.v13)")
        self.write("Sources/DemoKit/Home.swift", self.LIB)
        self.assertFound()

    def test_hostname_blocks_on_apple_platforms_even_on_macos(self):
        self.write("Sources/DemoKit/Host.swift", """\
            import Foundation
            public let name = ProcessInfo.processInfo.hostName
            #if os(Linux)
            public let linuxName = ProcessInfo.processInfo.hostName
            #endif
            """)
        self.assertFound(("Sources/DemoKit/Host.swift", 2, "non-ios-api"))
        self.assertIn("blocks on Apple platforms (macOS / iOS / tvOS", self.violations()[0].message)

    def test_process_inside_other_identifiers_is_not_the_type(self):
        self.write("Sources/DemoKit/Words.swift", """\
            import Foundation
            let id = ProcessInfo.processInfo.processIdentifier
            func processing(_ preProcessor: Int) -> Int { preProcessor }
            struct MockServerProcess {}
            """)
        self.assertFound()


class LinuxImports(GateTestCase):
    def test_an_unguarded_linux_only_import_fails(self):
        self.write("Sources/DemoKit/Net.swift", """\
            import Foundation
            import FoundationNetworking
            @preconcurrency import Glibc
            """)
        self.assertFound(("Sources/DemoKit/Net.swift", 2, "linux-import"),
                         ("Sources/DemoKit/Net.swift", 3, "linux-import"))

    def test_a_guarded_import_passes(self):
        self.write("Sources/DemoKit/Net.swift", """\
            import Foundation
            #if canImport(FoundationNetworking)
            import FoundationNetworking
            #endif
            #if os(Linux)
            import Glibc
            #elseif canImport(Musl)
            import Musl
            #endif
            """)
        self.assertFound()

    def test_it_applies_to_test_and_executable_targets_too(self):
        self.write("Tests/DemoKitTests/Net.swift", "import FoundationNetworking\n")
        self.write("Sources/demo/Net.swift", "import Glibc\n")
        self.assertFound(("Tests/DemoKitTests/Net.swift", 1, "linux-import"),
                         ("Sources/demo/Net.swift", 1, "linux-import"))

    def test_a_guard_false_on_only_one_apple_platform_is_not_enough(self):
        self.write("Sources/DemoKit/Net.swift", """\
            #if !os(macOS)
            import FoundationNetworking
            #endif
            """)
        self.assertFound(("Sources/DemoKit/Net.swift", 2, "linux-import"))


class SwiftTestingTools(GateTestCase):
    TRAIT = """\
        import Testing

        let annotate = IssueHandlingTrait.compactMapIssues { issue in issue }
        """

    def test_an_api_newer_than_the_tools_version_fails(self):
        self.write("Tests/DemoKitTests/Trait.swift", self.TRAIT)
        self.assertFound(("Tests/DemoKitTests/Trait.swift", 3, "swift-testing"))
        self.assertTrue(any(v.message.startswith("IssueHandlingTrait needs Swift 6.2 (Swift Testing), but swift-tools-version is 6.1")
                            for v in self.violations()))

    def test_under_if_compiler_the_api_passes(self):
        self.write("Tests/DemoKitTests/Trait.swift", """\
            import Testing

            #if compiler(>=6.2)
            let annotate = IssueHandlingTrait.compactMapIssues { issue in issue }
            #elseif swift(>=6.1)
            let annotate = Attachment.self
            #else
            let plain = 1
            #endif
            #if canImport(Testing, _version: 6.2)
            let filtered = IssueHandlingTrait.filterIssues { _ in true }
            #endif
            """)
        self.assertFound(("Tests/DemoKitTests/Trait.swift", 6, "swift-testing"))

    def test_with_tools_6_2_the_api_passes(self):
        self.set_manifest(tools="6.2")
        self.write("Tests/DemoKitTests/Trait.swift", self.TRAIT)
        self.assertFound()

    def test_a_library_that_imports_testing_is_checked_too(self):
        self.write("Sources/DemoKit/Trait.swift", """\
            import Testing
            public struct Scope: TestScoping {
                public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
                    try await function()
                }
            }
            """)
        self.set_manifest(tools="6.0")
        self.assertFound(("Sources/DemoKit/Trait.swift", 2, "swift-testing"),
                         ("Sources/DemoKit/Trait.swift", 3, "swift-testing"))

    def test_a_file_that_does_not_import_testing_is_not_checked(self):
        self.write("Sources/DemoKit/Attachment.swift", "struct Attachment {}\nlet a = Attachment()\n")
        self.assertFound()


class LanguageFeatures(GateTestCase):
    def test_a_raw_identifier_needs_swift_6_2(self):
        self.write("Tests/DemoKitTests/Raw.swift", """\
            import Testing
            @Test func `menu loads`() {}
            @Test func `default`() {}
            #if compiler(>=6.2)
            @Test func `menu loads again`() {}
            #endif
            """)
        self.assertFound(("Tests/DemoKitTests/Raw.swift", 2, "language"))
        self.assertIn("raw identifier `menu loads` needs Swift 6.2", self.violations()[0].message)

    def test_swift_6_2_syntax(self):
        self.write("Sources/DemoKit/New.swift", """\
            @concurrent func work() async {}
            nonisolated(nonsending) func other() async {}
            let fixed: [3 of Int] = [1, 2, 3]
            let name: String? = nil
            let shown = "\\(name, default: "none")"
            func call(_ a: Int, _ b: Int) {}
            """)
        self.assertFound(("Sources/DemoKit/New.swift", 1, "language"),
                         ("Sources/DemoKit/New.swift", 2, "language"),
                         ("Sources/DemoKit/New.swift", 3, "language"),
                         ("Sources/DemoKit/New.swift", 5, "language"))

    def test_a_trailing_comma_needs_swift_6_1(self):
        self.set_manifest(tools="6.0")
        self.write("Sources/DemoKit/Comma.swift", """\
            func call(_ a: Int, _ b: Int) {}
            let x = [1, 2,]
            func go() {
                call(
                    1,
                    2,
                )
            }
            """)
        self.assertFound(("Sources/DemoKit/Comma.swift", 6, "language"))

    def test_a_standard_library_api_that_ships_with_the_6_2_compiler(self):
        self.write("Sources/DemoKit/Named.swift", """\
            func start() {
                Task(name: "worker") {}
                #if compiler(>=6.2)
                Task(name: "guarded") {}
                #endif
            }
            """)
        self.assertFound(("Sources/DemoKit/Named.swift", 2, "language"))


class TrailingClosuresAndObservation(GateTestCase):
    def test_with_discarding_task_group_as_a_trailing_closure_fails(self):
        self.write("Sources/DemoKit/Serve.swift", """\
            func serve() async {
                await withDiscardingTaskGroup { group in
                    group.addTask {}
                }
                try? await withThrowingDiscardingTaskGroup(returning: Void.self) { _ in }
            }
            """)
        self.assertFound(("Sources/DemoKit/Serve.swift", 2, "availability"),
                         ("Sources/DemoKit/Serve.swift", 5, "availability"))
        self.assertIn("needs macOS 14.0 / iOS 17.0 / tvOS 17.0", self.violations()[0].message)

    def test_observation_fails_below_ios_17_and_passes_under_available(self):
        self.write("Sources/DemoKit/Model.swift", """\
            import Observation

            @Observable
            final class Cart {
                var items: [Int] = []
                @ObservationIgnored var cache = 0
            }

            @available(macOS 14, iOS 17, tvOS 17, *)
            @Observable
            final class Basket {
                var items: [Int] = []
            }
            """)
        self.assertFound(("Sources/DemoKit/Model.swift", 1, "availability"),
                         ("Sources/DemoKit/Model.swift", 3, "availability"),
                         ("Sources/DemoKit/Model.swift", 6, "availability"))
        self.assertTrue(self.violations()[0].message.startswith("import Observation needs macOS 14.0 / iOS 17.0 / tvOS 17.0"))

    def test_observation_with_ios_17_minimums_passes(self):
        self.set_manifest(platforms=".macOS(.v14), .iOS(.v17), .tvOS(.v17)")
        self.write("Sources/DemoKit/Model.swift", "import Observation\n@Observable final class Cart { var items: [Int] = [] }\n")
        self.assertFound()


class NoAsync(GateTestCase):
    def test_is_main_thread_in_async_code_fails(self):
        self.write("Sources/DemoKit/Main.swift", """\
            import Foundation

            func load() async -> Bool {
                Thread.isMainThread
            }
            func start() {
                Task { _ = Thread.isMainThread }
                let check = { await load(); return Thread.isMainThread }
                _ = check
            }
            struct Loader {
                var ready: Bool { get async { Thread.isMainThread } }
            }
            """)
        self.assertFound(("Sources/DemoKit/Main.swift", 4, "noasync"),
                         ("Sources/DemoKit/Main.swift", 7, "noasync"),
                         ("Sources/DemoKit/Main.swift", 8, "noasync"),
                         ("Sources/DemoKit/Main.swift", 12, "noasync"))
        self.assertTrue(self.violations()[0].message.startswith(
            "Thread.isMainThread is unavailable from asynchronous contexts on macOS / iOS / tvOS"), self.violations()[0].message)

    def test_is_main_thread_in_synchronous_code_passes(self):
        self.write("Sources/DemoKit/Main.swift", """\
            import Foundation

            func onMain() -> Bool { Thread.isMainThread }
            func later() async {
                DispatchQueue.main.async { precondition(Thread.isMainThread) }
                let sync = { Thread.isMainThread }
                _ = sync
                await Task.yield()
            }
            struct Loader {
                var ready: Bool { Thread.isMainThread }
                func run(_ body: () async -> Void) { _ = Thread.isMainThread }
            }
            """)
        self.assertFound()


class IOSSimulatorPackages(GateTestCase):
    EXAMPLE = """\
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "App",
            platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
            products: [.library(name: "AppNetworking", targets: ["AppNetworking"])],
            targets: [
                .target(name: "AppNetworking"),
                .testTarget(name: "AppNetworkingTests", dependencies: ["AppNetworking"]),
            ]
        )
        """
    RUNS = """\
        import Foundation
        func runTool() throws {
            let process = Process()
            try process.run()
        }
        """

    def test_process_in_an_example_test_target_fails(self):
        self.write("Examples/App/Package.swift", self.EXAMPLE)
        self.write("Examples/App/Sources/AppNetworking/Client.swift", "public struct Client {}\n")
        self.write("Examples/App/Tests/AppNetworkingTests/Tool.swift", self.RUNS)
        self.assertFound(("Examples/App/Tests/AppNetworkingTests/Tool.swift", 3, "non-ios-api"))
        self.assertIn("test target 'AppNetworkingTests' of a package whose tests CI builds for the iOS Simulator (Examples/*",
                      self.violations()[0].message)

    def test_process_in_the_root_packages_tests_passes(self):
        self.write("Tests/DemoKitTests/Tool.swift", self.RUNS)
        self.assertFound()


class OwnAvailableDeclarations(GateTestCase):
    def test_a_call_to_the_packages_own_newer_function_outside_a_check_fails(self):
        self.write("Sources/DemoKit/Fast.swift", """\
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, *)
            func fastPath(_ bytes: [UInt8]) -> Int { bytes.count }

            @available(macOS 15.0, iOS 18.0, tvOS 18.0, *)
            final class Pool: Sendable {
                init() {}
            }

            func count(_ bytes: [UInt8]) -> Int {
                if #available(macOS 15.0, iOS 18.0, tvOS 18.0, *), let pool = Optional(Pool()) {
                    _ = pool
                    return fastPath(bytes)
                }
                return bytes.count
            }
            """)
        self.write("Sources/Core/Use.swift", """\
            func slow(_ bytes: [UInt8]) -> Int {
                fastPath(bytes)
            }
            let shared = Pool()
            """)
        self.write("Sources/DemoKit/Use.swift", """\
            func slow(_ bytes: [UInt8]) -> Int {
                fastPath(bytes)
            }
            let shared: Pool? = nil
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, *)
            func fine() -> Int { fastPath([]) }
            """)
        self.assertFound(("Sources/Core/Use.swift", 2, "availability"),
                         ("Sources/Core/Use.swift", 4, "availability"),
                         ("Sources/DemoKit/Use.swift", 2, "availability"),
                         ("Sources/DemoKit/Use.swift", 4, "availability"))
        message = next(v.message for v in self.violations() if v.path == "Sources/DemoKit/Use.swift" and v.line == 2)
        self.assertTrue(message.startswith("fastPath (this package's own, @available at Sources/DemoKit/Fast.swift:2) needs macOS 15.0 / iOS 18.0 / tvOS 18.0"), message)

    def test_an_available_that_raises_no_declared_minimum_is_not_an_entry(self):
        self.write("Sources/DemoKit/Old.swift", """\
            @available(macOS 12, iOS 15, *)
            func oldEnough() -> Int { 1 }
            @available(*, unavailable)
            extension Kit: Sendable {}
            let one = oldEnough()
            """)
        self.assertFound()


class NestedPackages(GateTestCase):
    def test_a_nested_package_uses_its_own_manifest(self):
        self.write("Examples/App/Package.swift", """\
            // swift-tools-version:6.2
            import PackageDescription
            let package = Package(
                name: "App",
                platforms: [.iOS(.v18)],
                products: [.library(name: "AppKitLib", targets: ["AppKitLib"])],
                targets: [.target(name: "AppKitLib")]
            )
            """)
        self.write("Examples/App/Sources/AppKitLib/Lib.swift", """\
            import Foundation
            let wide = Int128(1)
            let home = FileManager.default.homeDirectoryForCurrentUser
            """)
        self.write("Examples/App/.build/checkouts/dep/Sources/Dep/Dep.swift", "import Glibc\n")
        self.write(".build/checkouts/other/Sources/Other/Other.swift", "import Glibc\n")
        self.assertFound(("Examples/App/Sources/AppKitLib/Lib.swift", 3, "non-ios-api"))


if __name__ == "__main__":
    unittest.main()

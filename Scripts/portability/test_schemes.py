"""Tests of schemes.py: packages and workflows made in a temporary folder.

    python3 -m unittest discover -s Scripts/portability -p 'test_*.py'
"""

import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import schemes  # noqa: E402

ROOT = """\
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "Kit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
    products: [
        .library(name: "KitCore", targets: ["KitCore"]),
        .library(name: "KitTesting", targets: ["KitTesting"]),
    ],
    targets: [
        .target(name: "KitCore"),
        .target(name: "KitTesting", dependencies: ["KitCore"]),
        .executableTarget(name: "kit-tool", dependencies: ["KitCore"]),
        .testTarget(name: "KitCoreTests", dependencies: ["KitCore"]),
    ]
)
"""

APP = """\
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "App",
    platforms: [.iOS(.v16)],
    products: [.library(name: "AppNetworking", targets: ["AppNetworking"])],
    dependencies: [.package(name: "Kit", path: "../..")],
    targets: [
        .target(name: "AppNetworking"),
        .testTarget(name: "AppNetworkingTests", dependencies: ["AppNetworking"]),
    ]
)
"""

SCHEME = """\
<?xml version="1.0" encoding="UTF-8"?>
<Scheme LastUpgradeVersion = "1640" version = "1.7">
   <BuildAction parallelizeBuildables = "YES" buildImplicitDependencies = "YES">
      <BuildActionEntries>
         <BuildActionEntry buildForTesting = "YES" buildForRunning = "YES">
            <BuildableReference BuildableIdentifier = "primary" BlueprintIdentifier = "{0}" BuildableName = "{0}"
               BlueprintName = "{0}" ReferencedContainer = "container:">
            </BuildableReference>
         </BuildActionEntry>
      </BuildActionEntries>
   </BuildAction>
   <TestAction buildConfiguration = "Debug">
      <Testables>
         <TestableReference skipped = "NO">
            <BuildableReference BuildableIdentifier = "primary" BlueprintIdentifier = "{1}" BuildableName = "{1}"
               BlueprintName = "{1}" ReferencedContainer = "container:">
            </BuildableReference>
         </TestableReference>
      </Testables>
   </TestAction>
</Scheme>
"""

WORKFLOW = """\
name: CI
on: [push]
jobs:
  simulators:
    strategy:
      matrix:
        include:
          - xcode: "16.*"
          - xcode: "26.*"
    runs-on: macos-26
    env:
      LIBRARY_SCHEMES: >-
        KitCore KitTesting
    steps:
      - name: libraries
        run: |
          for destination in "generic/platform=iOS Simulator" "generic/platform=tvOS Simulator"; do
            for scheme in $LIBRARY_SCHEMES; do
              xcodebuild build -scheme "$scheme" -destination "$destination"
            done
          done
      - name: app
        working-directory: Examples/App
        run: |
          xcodebuild test -scheme {app_scheme} \\
            -destination "platform=iOS Simulator,name=${{{{ steps.sim.outputs.name }}}}"
"""


class SchemesTestCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = self._tmp.name
        self.write("Package.swift", ROOT)
        self.write("Examples/App/Package.swift", APP)
        self.write("Examples/App/.swiftpm/xcode/xcshareddata/xcschemes/App-Tests.xcscheme",
                   SCHEME.format("AppNetworking", "AppNetworkingTests"))
        self.apis = os.path.join(self.root, "apis.json")
        self.write("apis.json", '{"apis": [], "ios_simulator_packages": ["Examples/*"]}')

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def workflow(self, text=None, app_scheme="App-Tests"):
        self.write(".github/workflows/ci.yml", text if text is not None else WORKFLOW.format(app_scheme=app_scheme))

    def problems(self):
        return schemes.check(self.root, self.apis)


class PackageSchemes(SchemesTestCase):
    def test_several_products_get_a_scheme_each_and_the_package_scheme(self):
        found = schemes.package_schemes(self.root)
        self.assertEqual(sorted(found.certain), ["Kit-Package", "KitCore", "KitTesting", "kit-tool"])
        self.assertEqual(found.errors, [])

    def test_one_product_counts_only_its_shared_schemes(self):
        found = schemes.package_schemes(os.path.join(self.root, "Examples/App"))
        self.assertEqual(sorted(found.certain), ["App-Tests"])
        self.assertIn("one product (AppNetworking)", found.uncertain)

    def test_a_shared_scheme_naming_a_target_the_package_lacks_is_an_error(self):
        self.write("Examples/App/.swiftpm/xcode/xcshareddata/xcschemes/Old.xcscheme",
                   SCHEME.format("AppNetworking", "AppTests"))
        found = schemes.package_schemes(os.path.join(self.root, "Examples/App"))
        self.assertNotIn("Old", found.certain)
        self.assertEqual(len(found.errors), 1)
        self.assertIn("Old.xcscheme: names AppTests, which App does not declare", found.errors[0])


class WorkflowCheck(SchemesTestCase):
    def test_schemes_from_a_loop_an_env_value_and_a_literal_pass(self):
        self.workflow()
        self.assertEqual(self.problems(), [])
        uses = schemes.workflow_uses(self.root)
        # two matrix rows, each: 2 library schemes + the app's
        self.assertEqual(len(uses), 6)
        self.assertEqual({u.scheme for u in uses}, {"KitCore", "KitTesting", "App-Tests"})

    def test_a_scheme_the_package_does_not_have_fails(self):
        self.workflow(app_scheme="App")
        problems = self.problems()
        self.assertEqual(len(problems), 2, problems)   # once per matrix row
        self.assertIn("-scheme App is not a scheme of Examples/App (App: App-Tests; one product (AppNetworking)", problems[0])

    def test_a_library_product_not_built_for_tvos_fails(self):
        self.workflow(WORKFLOW.format(app_scheme="App-Tests").replace(' "generic/platform=tvOS Simulator"', ""))
        self.assertEqual(self.problems(), [
            "library product KitCore of Kit is not built for the tvOS Simulator by any workflow (xcodebuild build -scheme KitCore)",
            "library product KitTesting of Kit is not built for the tvOS Simulator by any workflow (xcodebuild build -scheme KitTesting)",
        ])

    def test_tests_on_a_simulator_outside_the_gates_ios_packages_fail(self):
        self.write("apis.json", '{"apis": [], "ios_simulator_packages": ["Samples/*"]}')
        self.workflow()
        problems = self.problems()
        self.assertTrue(problems and all("no ios_simulator_packages glob in apis.json covers Examples/App" in p for p in problems), problems)

    def test_a_scheme_the_workflow_cannot_resolve_fails(self):
        self.workflow(textwrap.dedent("""\
            name: CI
            on: [push]
            jobs:
              build:
                runs-on: macos-26
                steps:
                  - run: xcodebuild build -scheme "$WHICH" -destination "generic/platform=iOS Simulator"
            """))
        problems = self.problems()
        self.assertIn("-scheme $WHICH cannot be resolved from the workflow", problems[0])

    def test_xcodebuild_without_a_scheme_fails(self):
        self.workflow(textwrap.dedent("""\
            name: CI
            on: [push]
            jobs:
              build:
                runs-on: macos-26
                steps:
                  - run: xcodebuild build -destination "generic/platform=iOS Simulator"
            """))
        self.assertTrue(any("xcodebuild without -scheme" in p for p in self.problems()))

    def test_the_repositorys_own_workflows_pass(self):
        repo = os.path.normpath(os.path.join(HERE, "..", ".."))
        self.assertEqual(schemes.check(repo), [])


if __name__ == "__main__":
    unittest.main()

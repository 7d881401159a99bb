"""Tests of snippets.py: articles made in a temporary folder, converted to Swift files.

    python3 -m unittest discover -s Scripts/portability -p 'test_*.py'

Whether a converted snippet compiles is the DocSnippets build's job (.ci/run); these tests
pin down the conversion: where each block's lines go, what wraps them, which imports a
file gets, and that the diagnostics point at the article's lines.
"""

import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import snippets  # noqa: E402

ARTICLE = """\
# Getting started

Some text.

```swift
import ContractTestsTesting
import Testing

@Test(.mockServer(scenario: "flaky"))
func menuLoads() async throws {
    let controller = MenuController(baseURL: MockServer.current.baseURL)
    _ = try await controller.fetchCategories()
}

@Suite(.mockServer)
struct ProductListTests { … }
```

1. A list item with a block:

   ```swift
   let server = try await TestMockServer.start()
   await server.stop()
   ```

```sh
swift test
```

```swift
final class PinnedDelegate: NSObject, URLSessionDelegate {
    let anchor: SecCertificate
    init(anchor: SecCertificate) { self.anchor = anchor }
}
```
"""


class Snippets(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.repo = self._tmp.name
        path = os.path.join(self.repo, "Sources", "ContractTests", "ContractTests.docc", "GettingStarted.md")
        os.makedirs(os.path.dirname(path))
        with open(path, "w", encoding="utf-8") as f:
            f.write(ARTICLE)
        self.found = snippets.find_snippets(self.repo)

    def tearDown(self):
        self._tmp.cleanup()

    def test_every_swift_block_is_found_with_its_first_line(self):
        self.assertEqual([(s.line, s.index, s.name) for s in self.found], [
            (6, 1, "ContractTests_GettingStarted_1"),
            (22, 2, "ContractTests_GettingStarted_2"),
            (31, 3, "ContractTests_GettingStarted_3"),
        ])
        self.assertEqual(self.found[1].code.split("\n")[0], "let server = try await TestMockServer.start()",
                         "a block in a list item loses the item's indentation")

    def test_an_articles_blocks_are_one_enum_declarations_made_static_pointing_at_the_article(self):
        lines = snippets.convert(self.found).split("\n")
        self.assertEqual(sum(1 for ln in lines if ln.startswith("enum ")), 1)
        self.assertIn("enum ContractTests_GettingStarted {", lines)
        start = lines.index('#sourceLocation(file: "Sources/ContractTests/ContractTests.docc/GettingStarted.md", line: 6)')
        # the block's lines follow one for one: line 6 of the article is the first
        self.assertEqual(lines[start + 4], "@Test(.mockServer(scenario: \"flaky\"))")
        self.assertEqual(lines[start + 5], "static func menuLoads() async throws {")
        self.assertIn("struct ProductListTests { /* … */ }", lines)
        self.assertIn("    let controller = MenuController(baseURL: MockServer.current.baseURL)", lines,
                      "a function's own lets stay as they are")

    def test_imports_are_hoisted_and_the_readers_context_added(self):
        text = snippets.convert(self.found[:1])
        head = text.split("enum ")[0]
        for module in ("ContractTestsTesting", "Testing", "ContractTests", "Foundation", "SnippetStandIns", "OrderAppNetworking"):
            self.assertIn(f"import {module}\n", head)
        self.assertNotIn("import ContractTestsTesting", text.split("enum ")[1], "the import line is blanked in place")

    def test_statements_are_an_async_function_and_a_later_block_keeps_earlier_imports(self):
        text = snippets.convert(self.found[1:2])
        self.assertIn("static func snippet2() async throws {\n"
                      '#sourceLocation(file: "Sources/ContractTests/ContractTests.docc/GettingStarted.md", line: 22)\n'
                      "let server = try await TestMockServer.start()", text)
        self.assertIn("_ = server", text)
        self.assertIn("import ContractTestsTesting\n", text, "the article's earlier imports are the reader's")

    def test_apple_only_code_is_compiled_where_its_framework_is(self):
        text = snippets.convert(self.found)
        self.assertIn("#if canImport(Security)\nimport Security\n#endif\n", text)
        part = text[text.index("#if canImport(Security)\n#sourceLocation"):]
        self.assertIn("final class PinnedDelegate", part)
        self.assertTrue(part.split("final class PinnedDelegate")[1].count("#endif") == 1)
        self.assertIn("static func menuLoads()", text, "the article's other blocks are compiled everywhere")

    def test_a_let_that_awaits_makes_the_block_statements(self):
        snippet = snippets.Snippet("Sources/Scenarios/Scenarios.docc/A.md", 3, 1, textwrap.dedent("""\
            let engine = try MockEngine(configuration: EngineConfiguration())
            """))
        self.assertIn("static func snippet1() async throws {", snippets.convert([snippet]))

    def test_a_let_without_try_or_await_is_a_static_member(self):
        snippet = snippets.Snippet("Sources/Scenarios/Scenarios.docc/A.md", 3, 1, 'let pacts = Pacts(name: "x")\n')
        self.assertIn('static let pacts = Pacts(name: "x")', snippets.convert([snippet]))

    def test_an_extension_is_refused_with_the_article_and_line(self):
        snippet = snippets.Snippet("Sources/Scenarios/Scenarios.docc/A.md", 3, 1, "extension Pet: Identifiable {}\n")
        with self.assertRaises(ValueError) as raised:
            snippets.convert([snippet])
        self.assertIn("Sources/Scenarios/Scenarios.docc/A.md:3", str(raised.exception))

    def test_writing_makes_one_file_per_article_in_both_targets(self):
        os.makedirs(os.path.join(self.repo, "DocSnippets", "Sources", "DocSnippets", "Generated"))
        stale = os.path.join(self.repo, "DocSnippets", "Sources", "DocSnippets", "Generated", "Gone_Article.swift")
        open(stale, "w").close()
        snippets.write(self.repo)
        for target in snippets.TARGETS:
            folder = os.path.join(self.repo, "DocSnippets", "Sources", target, "Generated")
            self.assertEqual(os.listdir(folder), ["ContractTests_GettingStarted.swift"])

    def test_the_repositorys_articles_all_convert(self):
        by_article = {}
        for snippet in snippets.find_snippets():
            by_article.setdefault(snippet.article, []).append(snippet)
        self.assertTrue(by_article)
        for article, found in by_article.items():
            self.assertIn(f"enum {found[0].namespace} {{", snippets.convert(found))


if __name__ == "__main__":
    unittest.main()

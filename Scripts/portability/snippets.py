#!/usr/bin/env python3
"""Every Swift snippet of the DocC catalogs, as Swift files the DocSnippets package compiles.

    python3 Scripts/portability/snippets.py            # writes DocSnippets/Sources/*/Generated/
    python3 Scripts/portability/snippets.py --list     # the snippets found, one line each

The ```swift blocks of each article in `Sources/*/*.docc/**/*.md` become one file in each
snippet target of `DocSnippets` (`DocSnippets`, and `DocSnippetsMainActor`, whose default
actor isolation is MainActor as in Xcode 26's new targets), so `swift build --package-path
DocSnippets` type-checks every snippet, and a snippet added to an article later is checked
with no step of its own. `#sourceLocation` lines point the diagnostics at the article's
own lines.

How an article's blocks become a file:
- their `import`s go to the top of the file, with the imports a reader's file has: the
  article's module, what the article's earlier blocks imported, and what the names a block
  uses need (Foundation; `XCTest` and `ContractTestsXCTest` beside `MockServerTestCase`;
  the examples' modules beside `MenuController` or `TodoClient`), and `SnippetStandIns`,
  which declares what a block takes from the surrounding text (`url`, `configuration`,
  `engine`, a reader's `PetsClient`, `MyAdapter`, and on Linux a `@MainActor XCUIApplication`);
- the blocks go into one enum per article, so a block may use what an earlier one
  declared, and two articles may both declare a `MenuTests`: a block of declarations
  (types, `@Test` functions, `let`s without `try` or `await`) as its members, its functions
  and `let`s made `static`; any other block (statements, or a `let` that awaits) as the
  body of an `async throws` function, with `_ = name` for each `let` it leaves unused;
- a `…` (an elided body) becomes a comment; a block that uses Apple-only API (`SecTrust…`)
  is compiled where its framework exists (the macOS CI jobs), not on Linux.

Python 3 standard library only; `test_snippets.py` tests the conversion.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gate  # noqa: E402

REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
PACKAGE = "DocSnippets"
TARGETS = ("DocSnippets", "DocSnippetsMainActor")

# Imports a user's file has around a snippet that names these.
CONTEXT_IMPORTS = [
    (r".", ["Foundation", "SnippetStandIns"]),
    (r"\.mockServer\b|\bMockServer\s*\.\s*current\b", ["ContractTestsTesting"]),
    (r"\bMockServerTestCase\b|\bXCUIApplication\b|\bXCTestCase\b", ["XCTest", "ContractTestsXCTest"]),
    (r"\bMenuController\b", ["OrderAppNetworking"]),
    (r"\bTodoClient\b", ["TodoNetworking"]),
    (r"\bClient\s*\(\s*serverURL\s*:", ["OpenMarketClient"]),
    (r"@Test\b|@Suite\b|#expect\b|#require\b", ["Testing"]),
]
# Apple-only code: compiled where its framework exists (the macOS CI job), skipped on Linux.
APPLE_ONLY = [(r"\bSec(?:Trust|Certificate|Key|Policy)\w*", "Security"),
              (r"\bURLSessionWebSocketProvider\b", "Darwin")]  # ContractTests declares it where Darwin is
# The module a reader of a catalog imports, where it is not the catalog's own: the harness's
# articles are read by users of the `ContractTests` product, which re-exports the harness with
# the built-in APIs' suites.
READER_MODULES = {"ContractHarness": "ContractTests"}
DECLARATION_HEADS = {"func", "class", "struct", "enum", "actor", "protocol", "typealias", "let", "var", "extension"}


@dataclass
class Snippet:
    article: str        # repository-relative path of the .md file
    line: int           # the line of the block's first code line
    index: int          # 1-based, within the article
    code: str
    earlier_imports: tuple = ()   # the imports of the article's snippets before this one

    @property
    def module(self) -> str:
        """The module whose catalog holds the article."""
        parts = self.article.split(os.sep)
        return parts[1] if parts[0] == "Sources" and len(parts) > 2 else ""

    @property
    def namespace(self) -> str:
        """The enum (and file) of the article's snippets: `ContractTests_GettingStarted`."""
        stem = os.path.splitext(os.path.basename(self.article))[0]
        return re.sub(r"\W", "_", f"{self.module or 'Docs'}_{stem}")

    @property
    def name(self) -> str:
        return f"{self.namespace}_{self.index}"


def find_snippets(repo: str = REPO) -> list:
    out = []
    for path in sorted(glob.glob(os.path.join(repo, "Sources", "*", "*.docc", "**", "*.md"), recursive=True)):
        rel = os.path.relpath(path, repo)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        index, i, seen = 0, 0, []
        while i < len(lines):
            m = re.match(r"^(\s*)```swift\s*$", lines[i])
            if not m:
                i += 1
                continue
            indent = len(m.group(1))
            start = i + 1
            j = start
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            body = [ln[indent:] if ln[:indent].strip() == "" else ln for ln in lines[start:j]]
            index += 1
            out.append(Snippet(rel, start + 1, index, "\n".join(body), tuple(seen)))
            for ln in body:
                m = re.match(r"^\s*(@testable\s+)?import\s+(\w+)", ln)
                if m and m.group(2) not in seen:
                    seen.append(m.group(2))
            i = j + 1
    return out


def _elisions(code: str) -> str:
    """`…` outside comments and strings becomes `/* … */`."""
    masked = gate.mask(code)
    out, last = [], 0
    for k, ch in enumerate(code):
        if ch == "…" and masked.code[k] == "…":
            out.append(code[last:k])
            out.append("/* … */")
            last = k + 1
    out.append(code[last:])
    return "".join(out)


def _top_level_lines(code: str) -> list:
    """(line index, first token text, tokens of the line) of each line that starts at
    brace/paren depth 0 and is not the continuation of the line before."""
    masked = gate.mask(code)
    toks = gate.tokenize(masked.code)
    depth, out, prev_line_end = 0, [], None
    line_first: dict = {}
    for t in toks:
        if t.kind == "nl":
            continue
        line = masked.line_of(t.start) - 1
        if line not in line_first and depth == 0:
            line_first[line] = t
        if t.kind == "punct" and t.text in "([{":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            depth -= 1
    for line, t in sorted(line_first.items()):
        out.append((line, t))
    return out


@dataclass
class Part:
    """One snippet, ready to go into its article's file."""
    snippet: Snippet
    imports: list
    lines: list          # the members it adds to the article's enum
    apple_only: list     # frameworks it needs (it is compiled only where they exist)


def convert_part(snippet: Snippet) -> Part:
    """One snippet's imports and the members it adds to its article's namespace: its
    declarations made `static`, or its statements as a function of their own."""
    code = _elisions(snippet.code)
    lines = code.split("\n")
    imports = []
    for k, ln in enumerate(lines):
        m = re.match(r"^\s*(@testable\s+)?import\s+(\w+)\s*(//.*)?$", ln)
        if m:
            imports.append(("@testable " if m.group(1) else "") + m.group(2))
            lines[k] = ""
    code = "\n".join(lines)
    # The article's module, and what its earlier snippets imported: the reader's file has them.
    own = READER_MODULES.get(snippet.module, snippet.module)
    for mod in ([own] if own else []) + list(snippet.earlier_imports):
        if mod not in imports:
            imports.append(mod)
    for pattern, modules in CONTEXT_IMPORTS:
        if re.search(pattern, gate.mask(code).code):
            for mod in modules:
                if mod not in imports and mod.replace("@testable ", "") not in imports:
                    imports.append(mod)

    heads = _top_level_lines(code)
    masked = gate.mask(code).code
    declarations = True
    for line, t in heads:
        text = masked.split("\n")[line].strip()
        words = re.findall(r"[A-Za-z_]\w*", re.sub(r"@\w+(\([^)]*\))?", "", text))
        head = next((w for w in words if w not in gate.MODIFIERS or w in ("class",)), None)
        if t.kind == "attr":
            continue  # an attribute line: the declaration follows
        if head not in DECLARATION_HEADS and not (head == "final" and "class" in words):
            declarations = False
            break
        if head in ("let", "var") and re.search(r"\b(?:try|await)\b", _statement_text(masked, line)):
            declarations = False
            break

    body = code.split("\n")
    location = f'#sourceLocation(file: "{snippet.article.replace(os.sep, "/")}", line: {snippet.line})'
    if declarations:
        for line, t in heads:
            text = body[line]
            if re.match(r"^\s*extension\b", text):
                raise ValueError(f"{snippet.article}:{snippet.line}: a snippet's extension cannot be compiled in a namespace; "
                                 f"teach snippets.py to place it at file scope")
            m = re.match(r"^(\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|nonisolated|final)\s+)*)(func|let|var)\b", text)
            if m:
                body[line] = text[:m.end(1)] + "static " + text[m.end(1):]
        members = [location] + body + ["#sourceLocation()"]
    else:
        unused = []
        for line, t in heads:
            m = re.match(r"^\s*(?:let|var)\s+([A-Za-z_]\w*)\s*[=:]", body[line])
            if m:
                unused.append(m.group(1))
        tail = ([f"_ = ({', '.join(unused)})" if len(unused) > 1 else f"_ = {unused[0]}"] if unused else [])
        members = [f"static func snippet{snippet.index}() async throws {{", location] + body + tail + ["#sourceLocation()", "}"]
    apple_only = [framework for pattern, framework in APPLE_ONLY if re.search(pattern, gate.mask(code).code)]
    return Part(snippet, imports, members, apple_only)


def render(article: str, parts: list) -> str:
    """The Swift file of one article: every snippet's imports, and their members in one
    enum, so a snippet may use what an earlier one of the same article declared (as its
    reader would). A snippet that needs an Apple-only framework is compiled only where it
    exists."""
    imports = []
    for part in parts:
        for mod in part.imports + part.apple_only:
            if mod not in imports:
                imports.append(mod)
    name = parts[0].snippet.namespace
    out = [f"// Generated by Scripts/portability/snippets.py from {article.replace(os.sep, '/')}: edit the article, not this file."]
    for mod in imports:
        line = f"@testable import {mod[len('@testable '):]}" if mod.startswith("@testable ") else f"import {mod}"
        framework = next((f for p in parts for f in p.apple_only if f == mod), None)
        out.append(f"#if canImport({framework})\n{line}\n#endif" if framework else line)
    out.append("#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n")
    out.append(f"enum {name} {{")
    for part in parts:
        if part.apple_only:
            out.append(f"#if canImport({part.apple_only[0]})")
        out.extend(part.lines)
        if part.apple_only:
            out.append("#endif")
    out.append("}")
    return "\n".join(out) + "\n"


def convert(snippets: list) -> str:
    """The Swift file of one article's snippets."""
    return render(snippets[0].article, [convert_part(s) for s in snippets])


def _statement_text(masked: str, line: int) -> str:
    """The text of the top-level statement that starts at `line` (to the line before the
    next line at depth 0)."""
    lines = masked.split("\n")
    text, depth = [], 0
    for ln in lines[line:]:
        if text and depth == 0:
            break
        text.append(ln)
        depth += sum(ln.count(c) for c in "([{") - sum(ln.count(c) for c in ")]}")
    return "\n".join(text)


def write(repo: str = REPO) -> list:
    snippets = find_snippets(repo)
    by_article: dict = {}
    for sn in snippets:
        by_article.setdefault(sn.article, []).append(convert_part(sn))
    files = {f"{parts[0].snippet.namespace}.swift": render(article, parts) for article, parts in by_article.items()}
    for target in TARGETS:
        folder = os.path.join(repo, PACKAGE, "Sources", target, "Generated")
        os.makedirs(folder, exist_ok=True)
        for old in glob.glob(os.path.join(folder, "*.swift")):
            if os.path.basename(old) not in files:
                os.remove(old)
        for name, text in files.items():
            path = os.path.join(folder, name)
            if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    return snippets


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="list the snippets, write nothing")
    args = ap.parse_args(argv)
    if args.list:
        for s in find_snippets():
            print(f"{s.article}:{s.line}  {s.name}")
        return 0
    try:
        snippets = write()
    except ValueError as error:
        print(f"snippets.py: {error}", file=sys.stderr)
        return 2
    print(f"snippets: {len(snippets)} Swift snippets from the DocC catalogs, written to "
          f"{PACKAGE}/Sources/{{{','.join(TARGETS)}}}/Generated")
    return 0


if __name__ == "__main__":
    sys.exit(main())

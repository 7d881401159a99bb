#!/usr/bin/env python3
"""Portability gate: what a Linux build of this package cannot catch.

Linux checks no availability and its Foundation has APIs iOS lacks, so a green Linux CI
says nothing about an iOS/macOS build. This script reads the Swift sources of every
package under ROOT (Package.swift, and nested ones such as Fuzz/ or Examples/*/) and
reports, one line per violation (`path:line: [class] message`):

  availability   an API newer than the package's declared minimum deployment targets,
                 outside a sufficient if/guard #available or @available scope
  non-ios-api    a macOS-only (or blocking) Foundation/Darwin API in a library target,
                 outside an #if region that is definitely false on the Apple platforms
                 that lack it
  linux-import   import Glibc / FoundationNetworking / ... without an #if that is
                 definitely false on every declared Apple platform
  swift-testing  a Swift Testing API newer than the package's swift-tools-version,
                 outside #if compiler(>=V) / swift(>=V) / canImport(Testing, _version: V)
  language       a language feature (or a standard-library API that ships with the
                 compiler) newer than the swift-tools-version, outside #if compiler(>=V)
  noasync        an API Apple's SDKs mark unavailable from asynchronous contexts (an
                 error in the Swift 6 language mode) that Linux's Foundation lets pass,
                 in an async function or closure

Besides the table, every declaration of the package's own that `@available` puts above
the declared minimums (`@available(macOS 15, iOS 18, *) func f()`) is an availability
entry of its package: a use of its name outside a sufficient check is reported.

The API table is data: apis.json beside this file (see README.md). Python 3 standard
library only. Exit status 1 when there is a violation, 0 otherwise.

A line can be exempted with a comment on it or on the line above:
    // portability-gate: allow availability        (or: allow non-ios-api, allow all, ...)
"""

from __future__ import annotations

import argparse
import bisect
import fnmatch
import json
import os
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import Iterable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
APPLE = ("macOS", "iOS", "tvOS", "watchOS", "visionOS")
CLASSES = ("availability", "non-ios-api", "linux-import", "swift-testing", "language", "noasync")

PLATFORM_NAMES = {
    "macos": "macOS", "osx": "macOS", "macosx": "macOS",
    "ios": "iOS", "tvos": "tvOS", "watchos": "watchOS",
    "visionos": "visionOS", "xros": "visionOS",
}

# A package that declares no `platforms:` builds for every Apple platform at "the oldest deployment target
# version that the installed SDK supports" (SwiftPM's SupportedPlatform docs). These are Xcode 15/16's
# oldest targets, from memory rather than a lookup; any newer API is flagged either way.
DEFAULT_MINIMUMS = {"macOS": (10, 13), "iOS": (12, 0), "tvOS": (12, 0), "watchOS": (4, 0), "visionOS": (1, 0)}

Version = tuple


# ---------------------------------------------------------------------------- versions

def parse_version(text: str) -> Optional[Version]:
    text = text.strip().strip('"').replace("_", ".")
    if text.startswith("v"):
        text = text[1:]
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", text)
    if not m:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)


def vkey(v: Version) -> Version:
    return tuple(v) + (0,) * (3 - len(v))


def vmax(a: Optional[Version], b: Optional[Version]) -> Optional[Version]:
    if a is None:
        return b
    if b is None:
        return a
    return a if vkey(a) >= vkey(b) else b


def vmin(a: Optional[Version], b: Optional[Version]) -> Optional[Version]:
    if a is None or b is None:
        return None
    return a if vkey(a) <= vkey(b) else b


def vge(a: Optional[Version], b: Version) -> bool:
    return a is not None and vkey(a) >= vkey(b)


def vstr(v: Version) -> str:
    v = tuple(v)
    if len(v) == 1:
        v = v + (0,)
    return ".".join(str(x) for x in v)


# ---------------------------------------------------------------------------- lexing

@dataclass
class Masked:
    text: str                 # the original
    code: str                 # comments and the contents of string/regex literals blanked
    keep: str                 # comments blanked, string literals kept
    strings: dict             # offset of the opening delimiter -> literal content
    regex_literals: list      # (start, end)
    comments: list            # (start, end)
    interpolations: list      # (start, end) of the code inside \( ... )
    line_starts: list

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)  # 1-based

    def line_range(self, line: int) -> tuple:
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.text)
        return start, end


_REGEX_PREV_KEYWORDS = {"return", "case", "in", "try", "await", "throw", "where", "if", "guard", "while", "some", "any"}


def _looks_like_regex(text: str, code: list, i: int) -> int:
    """If a bare /regex/ literal starts at i, return the offset of its closing slash."""
    n = len(text)
    if i + 1 >= n or text[i + 1] in " \t\n/*=)":
        return -1
    k = i - 1
    while k >= 0 and code[k] in " \t":
        k -= 1
    if k >= 0 and code[k] != "\n":
        prev = code[k]
        if prev.isalnum() or prev in "_$)]}\"'`":
            w = k
            while w >= 0 and (code[w].isalnum() or code[w] == "_"):
                w -= 1
            if "".join(code[w + 1:k + 1]) not in _REGEX_PREV_KEYWORDS:
                return -1
    j, in_class = i + 1, False
    while j < n and text[j] != "\n":
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            return j
        j += 1
    return -1


def mask(text: str) -> Masked:
    n = len(text)
    code = list(text)
    keep = list(text)
    strings: dict = {}
    regexes: list = []
    comments: list = []
    interps: list = []

    def blank(arr, a, b):
        for k in range(a, min(b, n)):
            if arr[k] != "\n":
                arr[k] = " "

    # Frames: ["code", interpolation paren depth or None, start] / ["str", hashes, multiline, start, pieces, segment start]
    stack: list = [["code", None, 0]]
    i = 0
    while i < n:
        fr = stack[-1]
        c = text[i]
        if fr[0] == "code":
            if c == "/" and text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                blank(code, i, j); blank(keep, i, j); comments.append((i, j))
                i = j
                continue
            if c == "/" and text.startswith("/*", i):
                depth, j = 0, i
                while j < n:
                    if text.startswith("/*", j):
                        depth += 1; j += 2; continue
                    if text.startswith("*/", j):
                        depth -= 1; j += 2
                        if depth == 0:
                            break
                        continue
                    j += 1
                blank(code, i, j); blank(keep, i, j); comments.append((i, j))
                i = j
                continue
            if c in '#"':
                j, h = i, 0
                while j < n and text[j] == "#":
                    h += 1; j += 1
                if j < n and text[j] == '"':
                    multiline = text.startswith('"""', j)
                    cstart = j + (3 if multiline else 1)
                    blank(code, i, j)  # the raw string's leading hashes
                    stack.append(["str", h, multiline, j, [], cstart])
                    i = cstart
                    continue
                if h and j < n and text[j] == "/":
                    close = "/" + "#" * h
                    k = text.find(close, j + 1)
                    if k >= 0:
                        blank(code, j + 1, k); blank(code, i, i + h); blank(code, k + 1, k + 1 + h)
                        regexes.append((i, k + len(close)))
                        i = k + len(close)
                        continue
                i = j if h else i + 1
                continue
            if c == "/":
                close = _looks_like_regex(text, code, i)
                if close > 0:
                    blank(code, i + 1, close)
                    regexes.append((i, close + 1))
                    i = close + 1
                    continue
            if c == "`":
                j = text.find("`", i + 1)
                nl = text.find("\n", i + 1)
                if j > 0 and (nl < 0 or j < nl):
                    i = j + 1
                    continue
            if fr[1] is not None:
                if c == "(":
                    fr[1] += 1
                elif c == ")":
                    fr[1] -= 1
                    if fr[1] == 0:
                        interps.append((fr[2], i))
                        code[i] = " "
                        stack.pop()
                        stack[-1][5] = i + 1
                        i += 1
                        continue
            i += 1
            continue
        # inside a string literal
        _, h, multiline, start, pieces, seg = fr
        if c == "\\" and text.startswith("#" * h, i + 1):
            k = i + 1 + h
            if k < n and text[k] == "(":
                pieces.append(text[seg:i]); pieces.append("\\(...)")
                blank(code, seg, k + 1)
                stack.append(["code", 1, k + 1])
                i = k + 1
                continue
            i = k + 1
            continue
        if c == '"':
            q = 3 if multiline else 1
            if text.startswith('"' * q, i) and text.startswith("#" * h, i + q):
                pieces.append(text[seg:i])
                blank(code, seg, i)
                end = i + q + h
                blank(code, i + q, end)
                strings[start] = "".join(pieces)
                stack.pop()
                i = end
                continue
        if c == "\n" and not multiline:
            pieces.append(text[seg:i]); blank(code, seg, i)
            strings[start] = "".join(pieces)
            stack.pop()
            continue
        i += 1
    while len(stack) > 1:  # unterminated literal at end of file
        fr = stack.pop()
        if fr[0] == "str":
            blank(code, fr[5], n)
            strings[fr[3]] = "".join(fr[4]) + text[fr[5]:]
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return Masked(text, "".join(code), "".join(keep), strings, regexes, comments, interps, line_starts)


# ---------------------------------------------------------------------------- tokens

TOKEN_RE = re.compile(
    r"(?P<nl>\n)|(?P<ws>[ \t\r\f\v]+)|(?P<ident>`[^`\n]*`|[A-Za-z_$][\w$]*)|(?P<pound>\#[A-Za-z_]\w*)"
    r"|(?P<attr>@[A-Za-z_]\w*)|(?P<num>\d[\w.]*)|(?P<punct>[{}()\[\],:;])|(?P<op>\S)"
)


@dataclass
class Tok:
    kind: str
    text: str
    start: int
    end: int


def tokenize(code: str) -> list:
    toks = []
    for m in TOKEN_RE.finditer(code):
        kind = m.lastgroup
        if kind == "ws":
            continue
        toks.append(Tok(kind, m.group(), m.start(), m.end()))
    return toks


def match_brackets(toks: list) -> dict:
    pairs = {"(": ")", "[": "]", "{": "}"}
    match: dict = {}
    stack: list = []
    for idx, t in enumerate(toks):
        if t.kind != "punct":
            continue
        if t.text in pairs:
            stack.append(idx)
        elif t.text in (")", "]", "}"):
            # tolerate unbalanced code (for example braces split across #if branches)
            for back in range(len(stack) - 1, -1, -1):
                if pairs[toks[stack[back]].text] == t.text:
                    o = stack[back]
                    del stack[back:]
                    match[o] = idx
                    match[idx] = o
                    break
    return match


# ---------------------------------------------------------------------------- #if conditions

class CondParser:
    TOK = re.compile(r'\s*(\|\||&&|!|\(|\)|,|:|>=|<=|==|<|>|"[^"]*"|[A-Za-z_][\w.]*|[\d][\w.]*)')

    def __init__(self, text: str):
        self.toks = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = self.TOK.match(text, pos)
            if not m or m.end() == pos:
                break
            self.toks.append(m.group(1))
            pos = m.end()
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def parse(self):
        try:
            return self.or_expr()
        except Exception:
            return ("unknown",)

    def or_expr(self):
        node = self.and_expr()
        while self.peek() == "||":
            self.take()
            node = ("or", node, self.and_expr())
        return node

    def and_expr(self):
        node = self.unary()
        while self.peek() == "&&":
            self.take()
            node = ("and", node, self.unary())
        return node

    def unary(self):
        if self.peek() == "!":
            self.take()
            return ("not", self.unary())
        return self.primary()

    def primary(self):
        t = self.take()
        if t is None:
            return ("unknown",)
        if t == "(":
            node = self.or_expr()
            if self.peek() == ")":
                self.take()
            return node
        if self.peek() == "(":
            self.take()
            depth, args = 1, []
            while self.peek() is not None:
                a = self.take()
                if a == "(":
                    depth += 1
                elif a == ")":
                    depth -= 1
                    if depth == 0:
                        break
                args.append(a)
            return ("call", t, args)
        if t == "true":
            return ("bool", True)
        if t == "false":
            return ("bool", False)
        return ("ident", t)


APPLE_MODULES_ALL = {"Darwin", "Security", "ObjectiveC", "CoreFoundation", "Foundation", "Dispatch",
                     "os", "Combine", "CoreGraphics", "Network", "SystemConfiguration", "CFNetwork"}
NON_APPLE_MODULES = {"Glibc", "Musl", "FoundationNetworking", "FoundationXML", "Android", "Bionic",
                     "WinSDK", "WASILibc", "ucrt", "CRT", "wasi_pthread"}
NON_APPLE_OS = {"linux", "windows", "android", "wasi", "freebsd", "openbsd", "cygwin", "haiku", "ps4", "none", "emscripten"}


def _kleene_and(a, b):
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return None


def _kleene_or(a, b):
    if a is True or b is True:
        return True
    if a is False and b is False:
        return False
    return None


def _kleene_not(a):
    return None if a is None else (not a)


def cond_eval(node, platform: str):
    kind = node[0]
    if kind == "bool":
        return node[1]
    if kind == "not":
        return _kleene_not(cond_eval(node[1], platform))
    if kind == "and":
        return _kleene_and(cond_eval(node[1], platform), cond_eval(node[2], platform))
    if kind == "or":
        return _kleene_or(cond_eval(node[1], platform), cond_eval(node[2], platform))
    if kind == "call":
        name, args = node[1], node[2]
        first = args[0] if args else ""
        if name == "os":
            p = PLATFORM_NAMES.get(first.lower())
            if p:
                return p == platform
            if first.lower() in NON_APPLE_OS:
                return False
            return None
        if name == "canImport":
            mod = first
            if mod in APPLE_MODULES_ALL:
                return True
            if mod in NON_APPLE_MODULES:
                return False
            if mod == "UIKit":
                return platform != "macOS"
            if mod == "AppKit":
                return platform == "macOS"
            if mod == "WatchKit":
                return platform == "watchOS"
            return None
        if name == "_runtime":
            return {"_ObjC": True, "_Native": False}.get(first)
        return None
    return None


def _version_arg(args: list) -> tuple:
    """compiler(>=6.2) -> (">=", (6, 2))"""
    if len(args) >= 2 and args[0] in (">=", "<", ">", "<=", "=="):
        return args[0], parse_version(args[1])
    return None, None


def cond_floor(node, positive: bool) -> Optional[Version]:
    """The compiler version a branch guarantees: when `node` is true (positive) or false."""
    kind = node[0]
    if kind == "not":
        return cond_floor(node[1], not positive)
    if kind in ("and", "or"):
        a, b = cond_floor(node[1], positive), cond_floor(node[2], positive)
        if (kind == "and") == positive:  # conjunction of guarantees
            return vmax(a, b)
        return vmin(a, b)
    if kind == "call" and node[1] in ("compiler", "swift"):
        op, v = _version_arg(node[2])
        if v is None:
            return None
        if positive and op in (">=", ">"):
            return v
        if not positive and op == "<":
            return v
        return None
    if kind == "call" and node[1] == "canImport" and node[2] and node[2][0] == "Testing":
        args = node[2]
        if positive and "_version" in args:
            k = args.index("_version")
            for a in args[k + 1:]:
                v = parse_version(a)
                if v:
                    return v
    return None


@dataclass
class Region:
    truth: dict                     # platform -> True / False / None (unknown)
    floor: Optional[Version]        # compiler version the region guarantees
    directive: bool = False


def compute_regions(m: Masked) -> list:
    """One Region per line (index 0 = line 1)."""
    lines = m.code.split("\n")
    keep_lines = m.keep.split("\n")
    top = Region({p: True for p in APPLE}, None)
    regions: list = []
    stack: list = []  # frames: {"parent": Region, "priors": [node], "current": Region}
    current = top
    for idx, line in enumerate(lines):
        s = line.lstrip()
        mm = re.match(r"#(if|elseif|else|endif)\b", s)
        if not mm:
            regions.append(current)
            continue
        kw = mm.group(1)
        cond_text = keep_lines[idx].lstrip()[len(mm.group(0)):]
        if kw == "if":
            node = CondParser(cond_text).parse()
            parent = current
            current = Region({p: _kleene_and(parent.truth[p], cond_eval(node, p)) for p in APPLE},
                             vmax(parent.floor, cond_floor(node, True)))
            stack.append({"parent": parent, "priors": [node]})
        elif kw in ("elseif", "else") and stack:
            fr = stack[-1]
            parent = fr["parent"]
            truth, floor = dict(parent.truth), parent.floor
            for prior in fr["priors"]:
                for p in APPLE:
                    truth[p] = _kleene_and(truth[p], _kleene_not(cond_eval(prior, p)))
                floor = vmax(floor, cond_floor(prior, False))
            if kw == "elseif":
                node = CondParser(cond_text).parse()
                for p in APPLE:
                    truth[p] = _kleene_and(truth[p], cond_eval(node, p))
                floor = vmax(floor, cond_floor(node, True))
                fr["priors"].append(node)
            current = Region(truth, floor)
        elif kw == "endif" and stack:
            current = stack.pop()["parent"]
        regions.append(Region(current.truth, current.floor, directive=True))
    return regions


# ---------------------------------------------------------------------------- availability scopes

@dataclass
class Interval:
    start: int
    end: int
    delta: dict          # platform -> minimum version guaranteed inside
    unavailable: set     # platforms for which the code is marked unavailable


def parse_availability_args(text: str) -> tuple:
    """(#|@)available(...) arguments -> ({platform: version}, {platforms marked unavailable}).

    Short form: `macOS 15, iOS 18.0, *`. Long form: `iOS, introduced: 16` / `iOS, unavailable` /
    `*, unavailable`. Platforms not listed get nothing (the `*` guarantees only the minimum).
    """
    delta: dict = {}
    unavailable: set = set()
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        return delta, unavailable
    head = parts[0].split()
    if len(head) == 1:  # long form
        name = head[0]
        if name == "*":
            plats = list(APPLE)
        elif name.lower() in PLATFORM_NAMES:
            plats = [PLATFORM_NAMES[name.lower()]]
        else:  # swift, macCatalyst, iOSApplicationExtension, ...
            plats = []
        for p in parts[1:]:
            if p == "unavailable":
                unavailable.update(plats)
            mm = re.match(r"introduced\s*:\s*([\d._]+)", p)
            if mm and name != "*":
                v = parse_version(mm.group(1))
                if v:
                    for pl in plats:
                        delta[pl] = v
        return delta, unavailable
    for p in parts:
        bits = p.split()
        if len(bits) == 2 and bits[0].lower() in PLATFORM_NAMES:
            v = parse_version(bits[1])
            if v:
                delta[PLATFORM_NAMES[bits[0].lower()]] = v
    return delta, unavailable


DECL_KEYWORDS = {"func", "init", "deinit", "subscript", "var", "let", "class", "struct", "enum", "actor",
                 "extension", "protocol", "typealias", "case", "macro", "associatedtype", "operator"}
STORED_DECLS = {"var", "let", "case", "typealias", "associatedtype"}
MODIFIERS = {"public", "private", "fileprivate", "internal", "open", "package", "static", "final", "override",
             "mutating", "nonmutating", "nonisolated", "isolated", "lazy", "weak", "unowned", "convenience",
             "required", "dynamic", "optional", "indirect", "consuming", "borrowing", "distributed", "prefix",
             "postfix", "infix"}


def compute_intervals(m: Masked, toks: list, match: dict) -> list:
    intervals: list = []
    n_tok = len(toks)
    eof = len(m.code)

    def nxt(k):  # next non-newline token index
        k += 1
        while k < n_tok and toks[k].kind == "nl":
            k += 1
        return k

    def find_open_brace(k, stop_at_else=False):
        """From token k, the first `{` at bracket depth 0 (jumping over () and [])."""
        while k < n_tok:
            t = toks[k]
            if t.kind == "punct":
                if t.text in "([" and k in match:
                    k = match[k] + 1
                    continue
                if t.text == "{":
                    return k
                if t.text == "}":
                    return -1
            if stop_at_else and t.kind == "ident" and t.text == "else":
                return k
            k += 1
        return -1

    def enclosing_close(k):
        """The `}` closing the scope that contains token k (or None for file scope)."""
        j = k - 1
        while j >= 0:
            t = toks[j]
            if t.kind == "punct":
                if t.text in ")]}" and j in match:
                    j = match[j] - 1
                    continue
                if t.text == "{":
                    return match.get(j)
            j -= 1
        return None

    def block_chain_end(k):
        """For `if ... {} else if ... {} else {}` starting at token k: the last token of the chain."""
        end = None
        while True:
            o = find_open_brace(k)
            if o < 0 or o not in match:
                return end
            end = match[o]
            e = nxt(end)
            if e < n_tok and toks[e].text == "else":
                k = nxt(e)
                continue
            return end

    for idx, t in enumerate(toks):
        if t.kind == "pound" and t.text in ("#available", "#unavailable"):
            o = nxt(idx)
            if o >= n_tok or toks[o].text != "(" or o not in match:
                continue
            close = match[o]
            delta, _ = parse_availability_args(m.code[toks[o].end:toks[close].start])
            if not delta:
                continue
            # the statement this condition belongs to
            j, kw = idx - 1, None
            while j >= 0:
                tj = toks[j]
                if tj.kind == "punct" and tj.text in ")]" and j in match:
                    j = match[j] - 1
                    continue
                if tj.kind == "punct" and tj.text in "{};":
                    break
                if tj.kind == "ident" and tj.text in ("if", "guard", "while"):
                    kw = tj.text
                    break
                j -= 1
            if kw is None:
                continue
            negative = t.text == "#unavailable"
            if kw in ("if", "while"):
                b = find_open_brace(close + 1)
                if b < 0 or b not in match:
                    continue
                bend = match[b]
                if not negative:
                    # The conditions after `#available` in the same `if` are refined too
                    # (`if #available(...), let e = x as? NewType {`).
                    intervals.append(Interval(toks[close].end, toks[bend].end, delta, set()))
                else:
                    e = nxt(bend)
                    if e < n_tok and toks[e].text == "else":
                        f = nxt(e)
                        if f < n_tok and toks[f].text == "{" and f in match:
                            intervals.append(Interval(toks[f].start, toks[match[f]].end, delta, set()))
                        elif f < n_tok and toks[f].text == "if":
                            last = block_chain_end(f)
                            if last is not None:
                                intervals.append(Interval(toks[f].start, toks[last].end, delta, set()))
            else:  # guard
                e = find_open_brace(close + 1, stop_at_else=True)
                if e < 0 or toks[e].text != "else":
                    continue
                b = nxt(e)
                if b >= n_tok or toks[b].text != "{" or b not in match:
                    continue
                bend = match[b]
                if negative:
                    intervals.append(Interval(toks[b].start, toks[bend].end, delta, set()))
                else:
                    intervals.append(Interval(toks[close].end, toks[e].start, delta, set()))
                    c = enclosing_close(j)
                    end = toks[c].start if c is not None else eof
                    intervals.append(Interval(toks[bend].end, end, delta, set()))
        elif t.kind == "attr" and t.text == "@available":
            o = nxt(idx)
            if o >= n_tok or toks[o].text != "(" or o not in match:
                continue
            close = match[o]
            delta, unavailable = parse_availability_args(m.code[toks[o].end:toks[close].start])
            if not delta and not unavailable:
                continue
            # find the declaration keyword
            k = nxt(close)
            decl = None
            while k < n_tok:
                tk = toks[k]
                if tk.kind == "attr":
                    a = nxt(k)
                    k = match[a] + 1 if a < n_tok and toks[a].text == "(" and a in match else k + 1
                    while k < n_tok and toks[k].kind == "nl":
                        k += 1
                    continue
                if tk.kind == "ident" and tk.text in DECL_KEYWORDS:
                    decl = k
                    break
                if tk.kind == "ident" and (tk.text in MODIFIERS or tk.text in ("class",)):
                    k = nxt(k)
                    if k < n_tok and toks[k].text == "(" and k in match:  # private(set), nonisolated(unsafe)
                        k = nxt(match[k])
                    continue
                if tk.kind == "nl":
                    k += 1
                    continue
                break
            if decl is None:
                continue
            stored = toks[decl].text in STORED_DECLS
            end_tok = None
            k = decl + 1
            while k < n_tok:
                tk = toks[k]
                if tk.kind == "punct":
                    if tk.text in "([" and k in match:
                        k = match[k] + 1
                        continue
                    if tk.text == "{":
                        end_tok = match.get(k, k)
                        break
                    if tk.text == "}":
                        end_tok = k - 1
                        break
                    if tk.text == ";" and stored:
                        end_tok = k
                        break
                if tk.kind == "nl":
                    f = k + 1
                    while f < n_tok and toks[f].kind == "nl":
                        f += 1
                    if f >= n_tok:
                        end_tok = k
                        break
                    nt = toks[f]
                    starts_decl = nt.kind in ("attr", "pound") or (nt.kind == "ident" and (nt.text in DECL_KEYWORDS or nt.text in MODIFIERS)) \
                        or (nt.kind == "punct" and nt.text == "}")
                    continues = nt.kind == "op" or (nt.kind == "punct" and nt.text in "{:") or (nt.kind == "ident" and nt.text in ("where", "throws", "rethrows", "async"))
                    if starts_decl or (stored and not continues):
                        end_tok = k
                        break
                k += 1
            if end_tok is None:
                end = eof
            else:
                end = toks[max(end_tok, decl)].end
            intervals.append(Interval(t.start, end, delta, unavailable))
    return intervals


# ---------------------------------------------------------------------------- async contexts

FUNCTION_KEYWORDS = {"func", "init", "deinit", "subscript"}
ACCESSOR_KEYWORDS = {"get", "set", "willSet", "didSet", "_read", "_modify"}
CONTROL_KEYWORDS = {"if", "guard", "else", "for", "while", "repeat", "do", "catch", "switch", "defer"}
TYPE_KEYWORDS = {"struct", "class", "enum", "actor", "extension", "protocol"}
# Calls whose trailing (or last) closure is an async operation, whatever its body says.
ASYNC_CLOSURE_CALLEES = {"Task", "detached", "addTask", "addTaskUnlessCancelled", "addDiscardingTask",
                         "withTaskGroup", "withThrowingTaskGroup", "withDiscardingTaskGroup",
                         "withThrowingDiscardingTaskGroup", "withTaskExecutorPreference", "immediate"}
# A newline ends a statement unless the line before ends with one of these, or the next
# line starts with `.` or an operator (a chained call, a wrapped condition).
_CONTINUES = set(",(=:&|+-*/<>!?.") | {"->", "in", "async", "throws", "rethrows", "where", "some", "any"}


@dataclass
class Scope:
    start: int          # offset of `{`
    end: int            # offset after `}`
    kind: str           # "function", "accessor", "closure", "type", "control"
    is_async: bool


def _statement_start(toks: list, match: dict, brace: int) -> int:
    """The first token of the statement whose body opens at `brace` (going back over
    bracketed groups, stopping at `{`, `}`, `;` or a newline that ends a statement)."""
    k = brace - 1
    first = brace
    while k >= 0:
        t = toks[k]
        if t.kind == "punct" and t.text in ")]" and k in match:
            first = match[k]
            k = match[k] - 1
            continue
        if t.kind == "punct" and t.text in "{}([;":
            break
        if t.kind == "nl":
            # find the tokens either side of this newline run
            a = k
            while a >= 0 and toks[a].kind == "nl":
                a -= 1
            after = toks[k + 1] if k + 1 < len(toks) else None
            before = toks[a] if a >= 0 else None
            cont = (before is not None and (before.text in _CONTINUES or before.text[-1:] in _CONTINUES)) \
                or (after is not None and after.kind == "op")
            if not cont:
                break
            k = a
            continue
        first = k
        k -= 1
    return first


def _closure_is_async(toks: list, match: dict, brace: int, close: int) -> bool:
    """A closure is async when its signature says so (`{ () async in`), when it is the
    operation of a call that runs it as a task (`Task { }`, `group.addTask { }`), or when
    its own body awaits (Swift infers `async` from an `await` outside nested closures)."""
    # its signature: tokens up to a top-level `in`
    k = brace + 1
    while k < close:
        t = toks[k]
        if t.kind == "punct" and t.text in "([" and k in match:
            k = match[k] + 1
            continue
        if t.kind == "punct" and t.text in "{}":
            break
        if t.kind == "ident" and t.text == "in":
            if any(toks[j].kind == "ident" and toks[j].text == "async" for j in range(brace + 1, k)):
                return True
            break
        k += 1
    # the callee: `Name {`, `Name(...) {`, `.name {`, `name(label: ...) {`, or `label: {` inside a call
    p = brace - 1
    while p >= 0 and toks[p].kind == "nl":
        p -= 1
    if p >= 0 and toks[p].kind == "punct" and toks[p].text == ")" and p in match:
        p = match[p] - 1
    while p >= 0 and toks[p].kind == "op" and toks[p].text in ">":
        # generic arguments: Task<Void, Never> {
        depth = 0
        while p >= 0:
            if toks[p].text == ">":
                depth += 1
            elif toks[p].text == "<":
                depth -= 1
                if depth == 0:
                    p -= 1
                    break
            p -= 1
    if p >= 0 and toks[p].kind == "ident" and toks[p].text in ASYNC_CLOSURE_CALLEES:
        return True
    if p >= 0 and toks[p].kind == "punct" and toks[p].text == ":":
        q = p - 1
        if q >= 0 and toks[q].kind == "ident" and toks[q].text in ("operation", "body"):
            # `withTaskCancellationHandler(operation: { ... })`, `withTaskGroup(of:body:)`
            r = q - 1
            while r >= 0 and not (toks[r].kind == "punct" and toks[r].text == "("):
                r -= 1
            if r > 0 and toks[r - 1].kind == "ident" and (toks[r - 1].text in ASYNC_CLOSURE_CALLEES
                                                          or toks[r - 1].text == "withTaskCancellationHandler"):
                return True
    # an `await` in its own body
    k = brace + 1
    while k < close:
        t = toks[k]
        if t.kind == "punct" and t.text == "{" and k in match:
            k = match[k] + 1
            continue
        if t.kind == "ident" and t.text == "await":
            return True
        k += 1
    return False


def _top_level(toks: list, match: dict, a: int, b: int) -> list:
    """Tokens in [a, b) outside any (...) or [...] group."""
    out, k = [], a
    while k < b:
        t = toks[k]
        if t.kind == "punct" and t.text in "([" and k in match:
            k = match[k] + 1
            continue
        if t.kind != "nl":
            out.append(t)
        k += 1
    return out


def _head_word(words: list) -> Optional[str]:
    """The keyword a declaration or statement starts with, past its modifiers
    (`public static func` -> func; `class func` -> func; `final class` -> class)."""
    for i, w in enumerate(words):
        if w == "class" and i + 1 < len(words) and words[i + 1] in FUNCTION_KEYWORDS | {"var", "let", "subscript"}:
            continue
        if w in MODIFIERS and w not in TYPE_KEYWORDS:
            continue
        return w
    return None


def compute_scopes(toks: list, match: dict) -> list:
    """Every `{ … }` of a function, accessor, closure or type body (control-flow bodies
    are the enclosing scope's), with whether code in it runs in an asynchronous context."""
    scopes = []
    for idx, t in enumerate(toks):
        if not (t.kind == "punct" and t.text == "{") or idx not in match:
            continue
        close = match[idx]
        first = _statement_start(toks, match, idx)
        top = _top_level(toks, match, first, idx)
        lead = [x.text for x in top if x.kind == "ident"]
        head = _head_word(lead)
        prev = toks[idx - 1] if idx > 0 else None
        kind, is_async = "closure", False
        if head in FUNCTION_KEYWORDS:
            kind = "function"
            # `async` after the parameter list, before `->` and the body
            sig = []
            for x in top:
                if x.kind == "op" and x.text == "-":
                    break
                sig.append(x.text)
            is_async = "async" in sig
        elif head in CONTROL_KEYWORDS or (prev is not None and prev.kind == "ident" and prev.text in ("else", "do", "repeat", "defer")):
            kind = "control"
        elif head in TYPE_KEYWORDS:
            kind = "type"
        elif head in ACCESSOR_KEYWORDS and lead and lead[-1] in ACCESSOR_KEYWORDS | {"async", "throws"}:
            kind = "accessor"
            is_async = "async" in lead
        elif head in ("var", "let") and not any(x.kind == "op" and x.text == "=" for x in top):
            kind = "accessor"  # a computed property's getter
        if kind == "closure":
            # `{` right after `(`/`,`/`=`/`return`/a call, or a trailing closure
            is_async = _closure_is_async(toks, match, idx, close)
        scopes.append(Scope(t.start, toks[close].end, kind, is_async))
    return scopes


def in_async_context(scopes: list, offset: int) -> bool:
    """Whether the innermost function, accessor or closure around `offset` is async."""
    inner = None
    for sc in scopes:
        if sc.kind == "control":
            continue
        if sc.start < offset < sc.end and (inner is None or sc.start >= inner.start):
            inner = sc
    return inner is not None and inner.kind != "type" and inner.is_async


# ---------------------------------------------------------------------------- packages

def _balanced(text: str, open_at: int) -> int:
    """Index of the bracket closing the one at open_at (string-aware)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    i = open_at
    in_str = False
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if stack and stack[-1] == c:
                stack.pop()
                if not stack:
                    return i
        i += 1
    return len(text) - 1


def top_level_args(text: str) -> list:
    """Split a call's argument text at top-level commas -> [(label or None, value)]."""
    out, depth, cur, in_str, i = [], 0, [], False, 0
    while i < len(text):
        c = text[i]
        if in_str:
            cur.append(c)
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1]); i += 2; continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True; cur.append(c)
        elif c in "([{":
            depth += 1; cur.append(c)
        elif c in ")]}":
            depth -= 1; cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur)); cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        out.append("".join(cur))
    result = []
    for a in out:
        mm = re.match(r"\s*([A-Za-z_]\w*)\s*:(?!:)(.*)$", a, re.S)
        if mm:
            result.append((mm.group(1), mm.group(2).strip()))
        else:
            result.append((None, a.strip()))
    return result


def _strings_in(text: str) -> list:
    return re.findall(r'"((?:[^"\\]|\\.)*)"', text)


@dataclass
class Target:
    name: str
    kind: str
    directory: str
    deps: list
    exclude: list
    sources: Optional[list]


@dataclass
class Package:
    root: str
    tools: Version
    platforms: dict
    declared_platforms: bool
    targets: dict
    library_targets: set
    products: list = field(default_factory=list)
    # Its test targets are built for (and run on) the iOS Simulator by CI, so the
    # non-iOS check covers every target, not only those a library product reaches.
    ios_built: Optional[str] = None
    name: str = ""


TARGET_KINDS = {"target": "regular", "executableTarget": "executable", "testTarget": "test", "macro": "macro",
                "plugin": "plugin", "systemLibrary": "system", "binaryTarget": "binary"}


def parse_package(root: str) -> Package:
    path = os.path.join(root, "Package.swift")
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    first = text.split("\n", 1)[0]
    mm = re.search(r"swift-tools-version\s*:\s*([\d.]+)", first)
    tools = parse_version(mm.group(1)) if mm else (5, 0)
    src = mask(text).keep

    platforms: dict = {}
    declared = False
    for pm in re.finditer(r"\bplatforms\s*:\s*\[", src):
        declared = True
        body = src[pm.end() - 1:_balanced(src, pm.end() - 1) + 1]
        for e in re.finditer(r"\.(macOS|iOS|tvOS|watchOS|visionOS)\s*\(\s*(?:\.v([\d_]+)|\"([\d.]+)\")", body):
            v = parse_version(e.group(2) or e.group(3))
            if v:
                platforms[e.group(1)] = v
    if not declared:
        platforms = dict(DEFAULT_MINIMUMS)

    targets: dict = {}
    target_re = re.compile(r"\.(target|executableTarget|testTarget|macro|plugin|systemLibrary|binaryTarget)\s*\(")
    pos = 0
    while True:
        tm = target_re.search(src, pos)
        if not tm:
            break
        open_at = tm.end() - 1
        close_at = _balanced(src, open_at)
        args = dict()
        for label, value in top_level_args(src[open_at + 1:close_at]):
            if label and label not in args:
                args[label] = value
        names = _strings_in(args.get("name", ""))
        kind = TARGET_KINDS[tm.group(1)]
        if not names or (kind == "plugin" and "capability" not in args) or (kind == "regular" and "name" not in args):
            pos = tm.end()
            continue
        pos = close_at + 1  # a `.target(name:)` inside this target's dependencies is not a declaration
        name = names[0]
        deps = []
        dep_text = args.get("dependencies", "")
        if dep_text.startswith("["):
            for label, value in top_level_args(dep_text[1:-1]):
                v = value.strip()
                if v.startswith('"'):
                    deps += _strings_in(v)[:1]
                elif re.match(r"\.(target|byName|targetItem|byNameItem)\s*\(", v):
                    s_ = _strings_in(v)
                    if s_:
                        deps.append(s_[0])
        pth = _strings_in(args.get("path", ""))
        if pth:
            directory = os.path.normpath(os.path.join(root, pth[0]))
        else:
            bases = {"test": ["Tests", "Sources", "Source", "src", "srcs"], "plugin": ["Plugins"]}.get(
                kind, ["Sources", "Source", "src", "srcs"])
            directory = os.path.join(root, bases[0], name)
            for b in bases:
                if os.path.isdir(os.path.join(root, b, name)):
                    directory = os.path.join(root, b, name)
                    break
        exclude = [os.path.normpath(os.path.join(directory, e)) for e in _strings_in(args.get("exclude", ""))]
        sources = None
        if "sources" in args:
            sources = [os.path.normpath(os.path.join(directory, x)) for x in _strings_in(args["sources"])]
        targets.setdefault(name, Target(name, kind, directory, deps, exclude, sources))

    products = []
    for pm in re.finditer(r"\.(library|executable|plugin)\s*\(", src):
        open_at = pm.end() - 1
        args = dict((l, v) for l, v in top_level_args(src[open_at + 1:_balanced(src, open_at)]) if l)
        names = _strings_in(args.get("name", ""))
        if "targets" not in args:  # `.plugin(name:capability:)` is a target, not a product
            continue
        products.append((pm.group(1), names[0] if names else "?", _strings_in(args.get("targets", ""))))
    library = set()
    todo = [t for kind, _, ts in products if kind == "library" for t in ts]
    while todo:
        t = todo.pop()
        if t in library or t not in targets:
            continue
        library.add(t)
        todo.extend(targets[t].deps)
    pm = re.search(r"\bPackage\s*\(\s*name\s*:\s*\"([^\"]*)\"", src)
    return Package(root, tools, platforms, declared, targets, library, products, name=pm.group(1) if pm else "")


def find_package_roots(root: str) -> list:
    roots = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("node_modules",))
        if "Package.swift" in filenames:
            roots.append(dirpath)
    return roots


@dataclass
class SourceFile:
    path: str
    package: Package
    target: Target
    masked: Masked = None
    toks: list = None
    match: dict = None

    def tokens(self) -> tuple:
        if self.toks is None:
            self.toks = tokenize(self.masked.code)
            self.match = match_brackets(self.toks)
        return self.toks, self.match


def collect_files(root: str) -> tuple:
    packages = [parse_package(r) for r in find_package_roots(root)]
    roots = sorted((p.root for p in packages), key=len, reverse=True)
    by_path: dict = {}
    for pkg in sorted(packages, key=lambda p: len(p.root), reverse=True):
        for target in pkg.targets.values():
            if target.kind in ("binary", "system") or not os.path.isdir(target.directory):
                continue
            for dirpath, dirnames, filenames in os.walk(target.directory):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                # a nested package's sources are its own
                dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in roots or os.path.join(dirpath, d) == pkg.root]
                for fn in sorted(filenames):
                    if not fn.endswith(".swift"):
                        continue
                    fp = os.path.normpath(os.path.join(dirpath, fn))
                    if any(fp == e or fp.startswith(e + os.sep) for e in target.exclude):
                        continue
                    if target.sources is not None and not any(fp == s or fp.startswith(s + os.sep) for s in target.sources):
                        continue
                    owner = max((r for r in roots if fp.startswith(r + os.sep)), key=len, default=None)
                    if owner != pkg.root:
                        continue
                    by_path.setdefault(fp, SourceFile(fp, pkg, target))
    return packages, [by_path[k] for k in sorted(by_path)]


# ---------------------------------------------------------------------------- the API table

@dataclass
class Api:
    name: str
    cls: str
    family: str
    pattern: Optional[re.Pattern]
    special: Optional[str]
    platforms: dict            # platform -> Version | "unavailable" | "blocking"
    swift: Optional[Version]
    source: str
    note: str
    hint: str
    requires_labels: dict
    forbids_labels: list
    receiver_types: list
    receiver_excludes: list
    shadowed_by: Optional[re.Pattern]
    literal_min_len: int
    scope: str
    raw: dict


def load_apis(path: str) -> tuple:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    apis = []
    for e in data["apis"]:
        plats = {}
        for p, v in (e.get("platforms") or {}).items():
            plats[p] = v if v in ("unavailable", "blocking", "available", "noasync") else parse_version(v)
        pat = e.get("pattern", "")
        special = pat if pat.startswith("<") else None
        apis.append(Api(
            name=e["name"], cls=e["class"], family=e.get("family", ""),
            pattern=None if special else re.compile(pat, re.M),
            special=special, platforms=plats,
            swift=parse_version(e["swift"]) if e.get("swift") else None,
            source=e.get("source", ""), note=e.get("note", ""), hint=e.get("hint", ""),
            requires_labels=e.get("requires_labels", {}), forbids_labels=e.get("forbids_labels", []),
            receiver_types=e.get("receiver_types", []), receiver_excludes=e.get("receiver_excludes", []),
            shadowed_by=re.compile(e["shadowed_by"], re.M) if e.get("shadowed_by") else None,
            literal_min_len=e.get("literal_min_len", 0), scope=e.get("scope", "library"), raw=e))
    return apis, data.get("linux_only_modules", sorted(NON_APPLE_MODULES))


def load_ios_simulator_packages(path: str) -> list:
    """Globs (relative to the scanned root) of packages whose tests CI builds for the iOS
    Simulator: `ios_simulator_packages` in the table."""
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("ios_simulator_packages", [])


# ---------------------------------------------------------------------------- checking

@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    cls: str
    message: str

    def render(self) -> str:
        return f"{self.path}:{self.line}: [{self.cls}] {self.message}"


def call_labels(code: str, open_at: int) -> list:
    """Top-level argument labels of the call whose `(` is at open_at (masked code)."""
    if open_at >= len(code) or code[open_at] != "(":
        return []
    close = _balanced(code, open_at)
    return top_level_args(code[open_at + 1:close])


def infer_type(code: str, name: str) -> Optional[str]:
    if not name or not re.match(r"[A-Za-z_]\w*$", name):
        return None
    pats = [
        rf"\b{name}\s*:\s*(?:inout\s+|borrowing\s+|consuming\s+)?([A-Z]\w*)",
        rf"\b{name}\s*=\s*([A-Z]\w*)\s*[(.\[]",
    ]
    for p in pats:
        mm = re.search(p, code)
        if mm:
            return mm.group(1)
    mm = re.search(rf"\b{name}\s*=\s*(?:try\s+|await\s+)*[\w.]*\.(uploadTask|downloadTask|dataTask)\s*\(", code)
    if mm:
        return {"uploadTask": "URLSessionUploadTask", "downloadTask": "URLSessionDownloadTask",
                "dataTask": "URLSessionDataTask"}[mm.group(1)]
    return None


def suppressed(m: Masked, line: int, cls: str) -> bool:
    for ln in (line, line - 1):
        if ln < 1 or ln > len(m.line_starts):
            continue
        a, b = m.line_range(ln)
        if ln != line and m.code[a:b].strip():
            continue  # the line above counts only when it is a comment by itself
        seg = m.text[a:b]
        mm = re.search(r"portability-gate:\s*(?:allow|ignore)\b([^\n]*)", seg)
        if mm:
            rest = mm.group(1)
            if not rest.strip() or "all" in rest or cls in rest:
                # only a comment counts: the marker must lie inside a comment range
                pos = a + mm.start()
                if any(s <= pos < e for s, e in m.comments):
                    return True
    return False


def literal_len(content: str) -> int:
    """Characters (roughly: grapheme clusters) in a string literal's source text."""
    escapes = {"n": "\n", "r": "\r", "t": "\t", "0": "\0", "\\": "\\", '"': '"', "'": "'"}

    def unescape(mm):
        body = mm.group(1)
        if body.startswith("u{"):
            try:
                return chr(int(body[2:-1], 16))
            except ValueError:
                return "?"
        return escapes.get(body, body)

    text = re.sub(r"\\(u\{[0-9A-Fa-f]+\}|.)", unescape, content).replace("\r\n", "\n")
    count, joiner = 0, False
    for ch in text:
        if unicodedata.combining(ch) or 0xFE00 <= ord(ch) <= 0xFE0F or 0x1F3FB <= ord(ch) <= 0x1F3FF:
            continue
        if ch == "\u200d":
            joiner = True
            continue
        if joiner:
            joiner = False
            continue
        count += 1
    return count


class Checker:
    def __init__(self, root: str, apis: list, linux_modules: list):
        self.root = root
        self.apis = apis
        self.linux_modules = linux_modules
        self.own_apis: dict = {}   # package root -> [Api] from its own @available declarations
        self.violations: set = set()
        self._shadow_cache: dict = {}

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.root)

    def add(self, sf: SourceFile, line: int, cls: str, message: str):
        if suppressed(sf.masked, line, cls):
            return
        self.violations.add(Violation(self.rel(sf.path), line, cls, message))

    def shadowed(self, api: Api, pkg: Package, pkg_code: str) -> bool:
        if api.shadowed_by is None:
            return False
        key = (api.name, pkg.root)
        if key not in self._shadow_cache:
            self._shadow_cache[key] = bool(api.shadowed_by.search(pkg_code))
        return self._shadow_cache[key]

    # ---- scope helpers
    @staticmethod
    def declared(pkg: Package) -> list:
        return [p for p in APPLE if p in pkg.platforms]

    @staticmethod
    def effective(pkg: Package, intervals: list, offset: int) -> tuple:
        """(minimum version per declared platform here, platforms marked unavailable here, inside a check?)"""
        env = {p: pkg.platforms[p] for p in APPLE if p in pkg.platforms}
        unavailable = set()
        guarded = False
        for iv in intervals:
            if iv.start <= offset < iv.end:
                guarded = guarded or bool(iv.delta)
                for p, v in iv.delta.items():
                    if p in env:
                        env[p] = vmax(env[p], v)
                unavailable |= iv.unavailable
        return env, unavailable, guarded

    def check_file(self, sf: SourceFile, pkg_code: str):
        m = sf.masked
        pkg = sf.package
        toks, match = sf.tokens()
        regions = compute_regions(m)
        intervals = compute_intervals(m, toks, match)
        imports_testing = re.search(r"^[ \t]*(?:@\w+(?:\([^)\n]*\))?\s+)*import\s+Testing\b", m.code, re.M) is not None
        is_library = sf.target.name in pkg.library_targets or (pkg.ios_built is not None and sf.target.kind in ("regular", "test"))
        declared = self.declared(pkg)
        scopes = []

        def async_at(offset):
            if not scopes:
                scopes.append(compute_scopes(toks, match))
            return in_async_context(scopes[0], offset)

        def region_at(offset):
            line = m.line_of(offset)
            return line, regions[line - 1] if line - 1 < len(regions) else Region({p: True for p in APPLE}, None)

        # ---- Linux-only imports
        mods = "|".join(re.escape(x) for x in self.linux_modules)
        for im in re.finditer(rf"^[ \t]*(?:@\w+(?:\([^)\n]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?({mods})\b", m.code, re.M):
            line, reg = region_at(im.start(1))
            live = [p for p in declared if reg.truth[p] is not False]
            if live:
                mod = im.group(1)
                self.add(sf, line, "linux-import",
                         f"import {mod} is Linux-only (there is no {mod} module on {' / '.join(live)}); "
                         f"wrap it in #if canImport({mod})")

        # ---- table-driven checks
        for api in self.apis + self.own_apis.get(pkg.root, []):
            if api.cls == "swift-testing" and not imports_testing:
                continue
            if api.cls == "non-ios-api" and api.scope == "library" and not is_library:
                continue
            if self.shadowed(api, pkg, pkg_code):
                continue
            for offset, detail in self.matches(api, sf, toks):
                line, reg = region_at(offset)
                if reg.directive:
                    continue
                if api.cls == "noasync" and not async_at(offset):
                    continue
                self.evaluate(api, sf, offset, line, reg, intervals, detail)

    def matches(self, api: Api, sf: SourceFile, toks: list) -> Iterable:
        m = sf.masked
        if api.special == "<regex-literal>":
            for a, _ in m.regex_literals:
                yield a, "regex literal"
            return
        if api.special == "<raw-identifier>":
            for t in toks:
                if t.kind == "ident" and t.text.startswith("`") and len(t.text) > 2:
                    inner = t.text[1:-1]
                    if (inner[0].isascii() and inner[0].isdigit()) or any(
                            ord(ch) < 128 and not (ch.isalnum() or ch in "_$") for ch in inner):
                        yield t.start, t.text
            return
        if api.special == "<interpolation-default>":
            for a, b in m.interpolations:
                seg, depth = m.code[a:b], 0
                for k, ch in enumerate(seg):
                    if ch in "([{":
                        depth += 1
                    elif ch in ")]}":
                        depth -= 1
                    elif ch == "," and depth == 0 and re.match(r",\s*default\s*:", seg[k:]):
                        yield a + k, "\\(..., default: ...)"
                        break
            return
        declares = api.raw.get("declared_by")
        for mm in api.pattern.finditer(m.code):
            offset = mm.start("api") if "api" in mm.groupdict() and mm.group("api") is not None else mm.start()
            if declares and re.search(declares, m.code[max(0, offset - 40):offset]):
                continue  # a declaration of the name (the entry's own, or an overload's)
            if api.requires_labels or api.forbids_labels:
                labels = call_labels(m.code, mm.end() - 1)
                names = {l for l, _ in labels if l}
                ok = True
                for lab, value_re in api.requires_labels.items():
                    if lab not in names:
                        ok = False
                        break
                    if value_re:
                        val = next(v for l, v in labels if l == lab)
                        if not re.search(value_re, val):
                            ok = False
                            break
                if ok and any(l in names for l in api.forbids_labels):
                    ok = False
                if not ok:
                    continue
            if api.literal_min_len:
                content = m.strings.get(mm.end() - 1)
                if content is None or literal_len(content) < api.literal_min_len:
                    continue
            if api.receiver_types or api.receiver_excludes:
                recv = mm.group("recv") if "recv" in mm.groupdict() else None
                typ = infer_type(m.code, recv) if recv else None
                if api.receiver_types and typ not in api.receiver_types:
                    continue
                if typ is not None and typ in api.receiver_excludes:
                    continue
            yield offset, mm.group(0)

    def evaluate(self, api: Api, sf: SourceFile, offset: int, line: int, reg: Region, intervals: list, detail: str):
        pkg = sf.package
        declared = self.declared(pkg)
        env, unavailable, guarded = self.effective(pkg, intervals, offset)
        live = [p for p in declared if reg.truth[p] is not False and p not in unavailable]
        tools = pkg.tools

        if api.cls == "availability":
            failing = []
            for p in live:
                need = api.platforms.get(p)
                if isinstance(need, tuple) and vkey(need) > vkey(env[p]):
                    failing.append(p)
                elif need == "unavailable":
                    failing.append(p)
            if failing:
                self.add(sf, line, "availability", self.availability_message(api, pkg, env, failing, guarded))
                return
            if api.swift and not vge(tools, api.swift) and not vge(reg.floor, api.swift):
                self.add(sf, line, "language", self.toolchain_message(api, pkg))
            return

        if api.cls == "non-ios-api":
            bad = [p for p in live if api.platforms.get(p) in ("unavailable", "blocking")]
            if not bad:
                return
            blocking = all(api.platforms.get(p) == "blocking" for p in bad)
            where = " / ".join(bad)
            if blocking:
                msg = (f"{api.name} blocks on Apple platforms ({where}: {api.raw.get('reason') or 'a synchronous network lookup'}); "
                       f"keep it behind #if os(Linux) (a region definitely false on every Apple platform) "
                       f"with a non-blocking fallback")
            else:
                if api.scope != "library":
                    kind = f"target '{sf.target.name}'"
                elif sf.target.name in pkg.library_targets:
                    kind = f"library target '{sf.target.name}'"
                else:
                    kind = (f"{sf.target.kind if sf.target.kind == 'test' else 'the'} target '{sf.target.name}' of a package "
                            f"whose tests CI builds for the iOS Simulator ({pkg.ios_built} in apis.json's ios_simulator_packages)")
                msg = (f"{api.name} is unavailable on {where}; {kind} is built for {where} — "
                       f"{api.hint or 'put it behind #if os(macOS) (or a region false on ' + where + ') with a fallback, or move it to an executable target'}")
            self.add(sf, line, "non-ios-api", msg)
            return

        if api.cls == "noasync":
            bad = [p for p in live if api.platforms.get(p) == "noasync"]
            if bad:
                self.add(sf, line, "noasync",
                         f"{api.name} is unavailable from asynchronous contexts on {' / '.join(bad)} "
                         f"(@available(*, noasync) in Apple's SDK: an error in the Swift 6 language mode; Linux's "
                         f"Foundation lets it pass); {api.hint or 'move it out of the async function or closure'}")
            return

        if api.cls in ("swift-testing", "language"):
            if api.swift is None or vge(tools, api.swift) or vge(reg.floor, api.swift):
                return
            what = "Swift Testing" if api.cls == "swift-testing" else (api.family or "language feature")
            subject = api.name if api.special != "<raw-identifier>" else f"raw identifier {detail}"
            self.add(sf, line, api.cls,
                     f"{subject} needs Swift {vstr(api.swift)} ({what}), but swift-tools-version is {vstr(tools)}; "
                     f"guard it with #if compiler(>={vstr(api.swift)}) or raise the tools version")

    @staticmethod
    def availability_message(api: Api, pkg: Package, env: dict, failing: list, guarded: bool) -> str:
        need = " / ".join(f"{p} {vstr(api.platforms[p])}" if isinstance(api.platforms.get(p), tuple)
                          else f"{p} (unavailable)" for p in failing)
        minimums = " / ".join(f"{p} {vstr(pkg.platforms[p])}" for p in APPLE if p in pkg.platforms)
        if not guarded:
            return f"{api.name} needs {need} (declared minimums {minimums}); " + (
                api.hint or "wrap it in if #available(...) with a fallback")
        here = " / ".join(f"{p} {vstr(env[p])}" for p in failing)
        return (f"{api.name} needs {need}, but the enclosing availability check only guarantees {here} "
                f"(declared minimums {minimums}); add {need} to that #available/@available list")

    @staticmethod
    def toolchain_message(api: Api, pkg: Package) -> str:
        return (f"{api.name} needs the Swift {vstr(api.swift)} toolchain ({api.family}; it ships with the compiler's "
                f"standard library/SDK), but swift-tools-version is {vstr(pkg.tools)}; guard it with "
                f"#if compiler(>={vstr(api.swift)}) or raise the tools version")


OWN_DECLS = {"func": "function", "class": "type", "struct": "type", "enum": "type", "actor": "type",
             "protocol": "type", "typealias": "type"}


def own_available_apis(pkg: Package, files: list, root: str) -> list:
    """An availability entry for each declaration of the package's own that `@available`
    puts above the declared minimums on a declared platform: its name (a function's
    followed by `(` or a trailing closure) used outside a sufficient check is a use of
    an API newer than the minimums, as much as a system API is. Matched by name, so an
    unannotated overload of the same name counts too (annotate it, or allow the line)."""
    out, seen = [], set()
    for sf in files:
        toks, match = sf.tokens()
        m = sf.masked
        n_tok = len(toks)
        for idx, t in enumerate(toks):
            if not (t.kind == "attr" and t.text == "@available"):
                continue
            o = idx + 1
            if o >= n_tok or toks[o].text != "(" or o not in match:
                continue
            delta, _ = parse_availability_args(m.code[toks[o].end:toks[match[o]].start])
            raised = {p: v for p, v in delta.items() if p in pkg.platforms and vkey(v) > vkey(pkg.platforms[p])}
            if not raised:
                continue
            k = match[o] + 1
            while k < n_tok:
                tk = toks[k]
                if tk.kind == "nl":
                    k += 1
                elif tk.kind == "attr":
                    k += 1
                    if k < n_tok and toks[k].text == "(" and k in match:
                        k = match[k] + 1
                elif tk.kind == "ident" and (tk.text in MODIFIERS or (tk.text == "class" and k + 1 < n_tok and toks[k + 1].text in ("func", "var", "let"))):
                    k += 1
                    if k < n_tok and toks[k].text == "(" and k in match:  # private(set)
                        k = match[k] + 1
                else:
                    break
            if k + 1 >= n_tok or toks[k].kind != "ident" or toks[k].text not in OWN_DECLS or toks[k + 1].kind != "ident":
                continue
            keyword, name = toks[k].text, toks[k + 1].text
            if name.startswith("`") or (keyword, name) in seen:
                continue
            seen.add((keyword, name))
            where = f"{os.path.relpath(sf.path, root)}:{m.line_of(toks[k + 1].start)}"
            if OWN_DECLS[keyword] == "function":
                pattern = rf"(?<![\w$]){re.escape(name)}(?=\s*(?:<[^>\n]*>\s*)?[({{])"
                declared_by = r"\bfunc\s+$"
            else:
                pattern = rf"(?<![\w$.]){re.escape(name)}\b"
                declared_by = r"\b(?:class|struct|enum|actor|protocol|typealias)\s+$"
            raw = {"declared_by": declared_by}
            out.append(Api(
                name=f"{name} (this package's own, @available at {where})", cls="availability",
                family="the package's own declarations", pattern=re.compile(pattern, re.M), special=None,
                platforms=raised, swift=None, source=where, note="", hint="", requires_labels={},
                forbids_labels=[], receiver_types=[], receiver_excludes=[], shadowed_by=None,
                literal_min_len=0, scope="library", raw=raw))
    return out


def run(root: str, apis_path: str) -> tuple:
    apis, linux_modules = load_apis(apis_path)
    packages, files = collect_files(root)
    checker = Checker(root, apis, linux_modules)
    globs = load_ios_simulator_packages(apis_path)
    for pkg in packages:
        rel = os.path.relpath(pkg.root, root).replace(os.sep, "/")
        pkg.ios_built = next((g for g in globs if fnmatch.fnmatchcase(rel, g)), None)
    for sf in files:
        with open(sf.path, encoding="utf-8", errors="replace") as f:
            sf.masked = mask(f.read())
    for pkg in packages:
        checker.own_apis[pkg.root] = own_available_apis(pkg, [sf for sf in files if sf.package is pkg], root)
    pkg_code = {}
    for sf in files:
        pkg_code.setdefault(sf.package.root, []).append(sf.masked.code)
    joined = {k: "\n".join(v) for k, v in pkg_code.items()}
    for sf in files:
        checker.check_file(sf, joined[sf.package.root])
    order = sorted(checker.violations, key=lambda v: (v.path, v.line, v.cls, v.message))
    return files, order, packages


def list_apis(apis_path: str) -> None:
    apis, linux = load_apis(apis_path)
    for api in apis:
        plats = ", ".join(f"{p} {vstr(v) if isinstance(v, tuple) else v}" for p, v in api.platforms.items())
        extra = f"; Swift {vstr(api.swift)}" if api.swift else ""
        print(f"[{api.cls}] {api.family}: {api.name} — {plats or '-'}{extra}")
        print(f"    source: {api.source}")
        if api.note:
            print(f"    note: {api.note}")
    print(f"[linux-import] modules: {', '.join(linux)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.normpath(os.path.join(HERE, "..", "..")),
                    help="the folder to scan (default: the repository root)")
    ap.add_argument("--apis", default=os.path.join(HERE, "apis.json"), help="the API table (default: apis.json here)")
    ap.add_argument("--list-apis", action="store_true", help="print the API table and exit")
    ap.add_argument("--verbose", action="store_true", help="also print the packages and targets found")
    args = ap.parse_args(argv)
    if args.list_apis:
        list_apis(args.apis)
        return 0
    root = os.path.abspath(args.root)
    files, violations, packages = run(root, args.apis)
    if args.verbose:
        for p in packages:
            plats = ", ".join(f"{k} {vstr(v)}" for k, v in p.platforms.items())
            print(f"# package {os.path.relpath(p.root, root) or '.'}: tools {vstr(p.tools)}; "
                  f"platforms {plats}{'' if p.declared_platforms else ' (SwiftPM defaults)'}; "
                  f"library targets {', '.join(sorted(p.library_targets)) or '-'}")
    for v in violations:
        print(v.render())
    print(f"portability gate: {len(files)} files, {len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `gate.py --list-apis | head`
        sys.stderr.close()
        sys.exit(0)

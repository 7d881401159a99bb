#!/usr/bin/env python3
"""The Xcode schemes of this repository's packages, and a check of the workflows' use of them.

    python3 Scripts/portability/schemes.py [ROOT]           # each package's schemes, and why each exists
    python3 Scripts/portability/schemes.py --check [ROOT]   # exit 1 unless the workflows name only schemes that exist

A scheme counts when it is certain to exist for `xcodebuild` run in the package's folder:

- a shared scheme file, `.swiftpm/xcode/xcshareddata/xcschemes/<name>.xcscheme`, whose
  every buildable reference names a target or product of the package;
- for a package with several products (its library and executable products, and an
  executable target no product names, which SwiftPM makes a product of): one scheme per
  product, named after it, and `<package name>-Package`, which builds every target and
  runs every test target (Apple's "Organizing your code with local packages": "Xcode
  creates a scheme for each product in the package manifest ... If your package contains
  multiple products, Xcode creates an additional scheme with the name [packageName]-Package").

A package with one product or none gets no certain scheme of Xcode's own: with one
product, xcodebuild was reported to name the scheme after the package, not the product as
Apple's page says (swift forums, "How to obtain schemes from Package.swift"); with none,
whether Xcode makes a scheme at all is unconfirmed. Such a package carries a shared scheme.

`--check` reads `.github/workflows/*.yml` (PyYAML): every `xcodebuild` command of every job,
with the job's matrix, the workflow's, job's and step's `env`, `working-directory` and the
script's `for NAME in WORDS` loops expanded, must name with `-scheme` a scheme of the
package in its folder; a `test` or `build-for-testing` for a Simulator must be in a
package that `apis.json`'s `ios_simulator_packages` covers (so the portability gate checks
its tests as iOS code); and every library product of the root package must be built for
the iOS and the tvOS Simulator.
"""

from __future__ import annotations

import argparse
import fnmatch
import glob
import itertools
import os
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gate  # noqa: E402

TEST_ACTIONS = {"test", "build-for-testing", "test-without-building"}
ACTIONS = TEST_ACTIONS | {"build", "analyze", "archive", "clean", "install", "installsrc", "docbuild"}
SHARED = os.path.join(".swiftpm", "xcode", "xcshareddata", "xcschemes")


@dataclass
class Schemes:
    package: gate.Package
    certain: dict = field(default_factory=dict)    # name -> why it exists
    uncertain: str = ""                            # what Xcode does that is not counted
    errors: list = field(default_factory=list)


def products(pkg: gate.Package) -> list:
    """Library and executable products, and the executable products SwiftPM makes of
    executable targets that no product names."""
    names = [name for kind, name, _ in pkg.products if kind in ("library", "executable")]
    named_exec = {name for kind, name, _ in pkg.products if kind == "executable"}
    for t in pkg.targets.values():
        if t.kind == "executable" and t.name not in named_exec and t.name not in names:
            names.append(t.name)
    return names


def shared_schemes(root: str) -> dict:
    """name -> [BlueprintName of each buildable reference] of the package's shared schemes."""
    out = {}
    for path in sorted(glob.glob(os.path.join(root, SHARED, "*.xcscheme"))):
        name = os.path.basename(path)[:-len(".xcscheme")]
        try:
            tree = ET.parse(path)
        except ET.ParseError as error:
            out[name] = ParseError(str(error))
            continue
        out[name] = [ref.get("BlueprintName", "") for ref in tree.iter("BuildableReference")]
    return out


class ParseError(str):
    pass


def package_schemes(root: str) -> Schemes:
    pkg = gate.parse_package(root)
    result = Schemes(pkg)
    made = products(pkg)
    if len(made) > 1:
        for name in made:
            result.certain[name] = "a product (Xcode makes a scheme for each product)"
        result.certain[f"{pkg.name}-Package"] = "the package's scheme (Xcode makes it for a package with several products)"
    elif len(made) == 1:
        result.uncertain = (f"one product ({made[0]}): Xcode's scheme for it is named {made[0]} per Apple's documentation, "
                            f"{pkg.name} per xcodebuild output reported on the Swift forums, so neither is counted")
    else:
        result.uncertain = "no products: whether Xcode makes a scheme for it is unconfirmed, so none is counted"
    known = set(pkg.targets) | {name for _, name, _ in pkg.products}
    rel = os.path.join(os.path.relpath(root), SHARED)
    for name, refs in shared_schemes(root).items():
        if isinstance(refs, ParseError):
            result.errors.append(f"{rel}/{name}.xcscheme: not a scheme file ({refs})")
            continue
        missing = sorted({r for r in refs if r not in known})
        if missing:
            result.errors.append(f"{rel}/{name}.xcscheme: names {', '.join(missing)}, which {pkg.name} does not declare "
                                 f"(its targets and products: {', '.join(sorted(known))})")
            continue
        if not refs:
            result.errors.append(f"{rel}/{name}.xcscheme: builds nothing")
            continue
        result.certain[name] = f"a shared scheme ({', '.join(dict.fromkeys(refs))})"
    return result


# ---------------------------------------------------------------------------- workflows

@dataclass
class Use:
    where: str            # file:job:step
    directory: str        # relative to the repository root
    scheme: Optional[str]
    actions: list
    destinations: list
    problem: str = ""


_EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def matrix_rows(strategy) -> list:
    """The combinations of a job's `strategy.matrix` (axes, `include`, `exclude`)."""
    matrix = (strategy or {}).get("matrix") or {}
    if not isinstance(matrix, dict):
        return [{}]
    axes = {k: v for k, v in matrix.items() if k not in ("include", "exclude") and isinstance(v, list)}
    rows = [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())] if axes else []
    for ex in matrix.get("exclude") or []:
        rows = [r for r in rows if any(r.get(k) != v for k, v in ex.items())]
    originals = [dict(r) for r in rows]
    for inc in matrix.get("include") or []:
        # GitHub's rule: an entry joins every original combination whose axis values it
        # does not change; one that joins none is a combination of its own.
        matched = False
        for r, original in zip(rows, originals):
            if axes and all(original.get(k) == v for k, v in inc.items() if k in axes):
                r.update(inc)
                matched = True
        if not matched:
            rows.append(dict(inc))
    return rows or [{}]


def substitute(text: str, matrix: dict, env: dict) -> str:
    def one(m):
        expr = m.group(1)
        if expr.startswith("matrix."):
            return str(matrix.get(expr[len("matrix."):], m.group(0)))
        if expr.startswith("env."):
            return str(env.get(expr[len("env."):], m.group(0)))
        return m.group(0)  # steps.*, github.*: known only when the job runs
    return _EXPR.sub(one, str(text))


def logical_lines(script: str) -> list:
    return script.replace("\\\n", " ").split("\n")


def expand_word(word: str, env: dict, loops: dict) -> list:
    """The values a shell word can take: `$NAME`/`${NAME}` from the loop variables (each
    value) or the environment; unknown names stay as they are (and fail the check)."""
    names = re.findall(r"\$\{?([A-Za-z_]\w*)\}?", word)
    choices = []
    for name in names:
        if name in loops:
            choices.append([(name, v) for v in loops[name]])
        elif name in env:
            choices.append([(name, str(env[name]))])
    out = []
    for combo in itertools.product(*choices) if choices else [()]:
        w = word
        for name, value in combo:
            w = re.sub(r"\$\{?" + name + r"\}?(?!\w)", lambda _m, v=value: v, w)
        out.append(w)
    return out


def xcodebuild_uses(script: str, env: dict) -> list:
    """(actions, scheme values, destination values, cd) of each xcodebuild command."""
    loops: dict = {}
    stack: list = []
    cwd = None
    out = []
    for line in logical_lines(script):
        stripped = line.strip()
        m = re.match(r"for\s+(\w+)\s+in\s+(.*?)\s*(?:;\s*do)?\s*$", stripped)
        if m:
            words = []
            for w in shlex.split(m.group(2), posix=True):
                for value in expand_word(w, env, loops):
                    words.extend(value.split() if re.search(r"\$\w", w) and not w.startswith('"') else [value])
            loops[m.group(1)] = words
            stack.append(m.group(1))
            continue
        if re.match(r"done\b", stripped) and stack:
            loops.pop(stack.pop(), None)
            continue
        m = re.match(r"cd\s+(\S+)", stripped)
        if m:
            cwd = shlex.split(m.group(1))[0] if m.group(1) else None
            continue
        if not re.search(r"(?:^|[;&|]\s*)xcodebuild\b", stripped):
            continue
        try:
            words = shlex.split(stripped[stripped.index("xcodebuild"):], posix=True)
        except ValueError:
            continue
        actions, schemes, destinations = [], [], []
        i = 1
        while i < len(words):
            w = words[i]
            if w in ("-scheme", "-destination", "-workspace", "-project") and i + 1 < len(words):
                values = expand_word(words[i + 1], env, loops)
                {"-scheme": schemes, "-destination": destinations}.get(w, []).extend(values)
                if w in ("-workspace", "-project"):
                    actions.append(w)
                i += 2
                continue
            if w in ACTIONS:
                actions.append(w)
            i += 1
        out.append((actions, schemes, destinations, cwd))
    return out


def workflow_uses(root: str) -> list:
    import yaml  # PyYAML: .ci/run installs it
    uses = []
    for path in sorted(glob.glob(os.path.join(root, ".github", "workflows", "*.y*ml"))):
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f) or {}
        top_env = doc.get("env") or {}
        for job_id, job in (doc.get("jobs") or {}).items():
            job = job or {}
            for row in matrix_rows(job.get("strategy")):
                job_env = {**top_env, **{k: substitute(v, row, top_env) for k, v in (job.get("env") or {}).items()}}
                default_dir = ((job.get("defaults") or {}).get("run") or {}).get("working-directory")
                for n, step in enumerate(job.get("steps") or []):
                    script = step.get("run")
                    if not script or "xcodebuild" not in script:
                        continue
                    env = {**job_env, **{k: substitute(v, row, job_env) for k, v in (step.get("env") or {}).items()}}
                    directory = substitute(step.get("working-directory") or default_dir or ".", row, env)
                    where = f"{os.path.relpath(path, root)}: job {job_id}, step {step.get('name') or n + 1}"
                    if row:
                        where += " (" + ", ".join(f"{k}={v}" for k, v in row.items()) + ")"
                    for actions, schemes, destinations, cd in xcodebuild_uses(substitute(script, row, env), env):
                        if "-workspace" in actions or "-project" in actions:
                            continue  # not a package's scheme
                        if not actions or set(actions) <= {"-showBuildSettings"}:
                            continue
                        d = os.path.normpath(os.path.join(directory, cd)) if cd else os.path.normpath(directory)
                        if not schemes:
                            if set(actions) & (ACTIONS - {"clean"}):
                                uses.append(Use(where, d, None, actions, destinations, "xcodebuild without -scheme"))
                            continue
                        for scheme in schemes:
                            uses.append(Use(where, d, scheme, actions, destinations))
    return uses


def check(root: str, apis_path: str = os.path.join(HERE, "apis.json")) -> list:
    """Problems, one line each; empty when the workflows name only schemes that exist."""
    problems = []
    globs = gate.load_ios_simulator_packages(apis_path)
    cache: dict = {}
    built: dict = {}   # (directory, scheme) -> set of simulator platforms
    for use in workflow_uses(root):
        if use.problem:
            problems.append(f"{use.where}: {use.problem}")
            continue
        directory = os.path.join(root, use.directory)
        if "$" in use.scheme or "${{" in use.scheme:
            problems.append(f"{use.where}: -scheme {use.scheme} cannot be resolved from the workflow (name the scheme, "
                            f"a matrix value, an env value or a `for` loop's words)")
            continue
        if not os.path.isfile(os.path.join(directory, "Package.swift")):
            problems.append(f"{use.where}: {use.directory} has no Package.swift")
            continue
        if use.directory not in cache:
            cache[use.directory] = package_schemes(directory)
            problems.extend(cache[use.directory].errors)
        schemes = cache[use.directory]
        if use.scheme not in schemes.certain:
            known = ", ".join(sorted(schemes.certain)) or "none"
            extra = f"; {schemes.uncertain}" if schemes.uncertain else ""
            problems.append(f"{use.where}: -scheme {use.scheme} is not a scheme of {use.directory} "
                            f"({schemes.package.name}: {known}{extra}; add a shared scheme, "
                            f"{use.directory}/{SHARED}/{use.scheme}.xcscheme)")
            continue
        simulators = {p for d in use.destinations for p in ("iOS", "tvOS", "watchOS", "visionOS") if f"{p} Simulator" in d}
        built.setdefault((use.directory, use.scheme), set()).update(simulators)
        if simulators and set(use.actions) & TEST_ACTIONS:
            rel = use.directory.replace(os.sep, "/")
            if not any(fnmatch.fnmatchcase(rel, g) for g in globs):
                problems.append(f"{use.where}: the tests of {use.directory} are built for the "
                                f"{' and '.join(sorted(simulators))} Simulator, but no ios_simulator_packages glob in "
                                f"apis.json covers {rel}, so the portability gate does not check them as iOS code")
    root_pkg = gate.parse_package(root)
    for kind, name, _ in root_pkg.products:
        if kind != "library":
            continue
        platforms = built.get((".", name), set())
        missing = [p for p in ("iOS", "tvOS") if p not in platforms]
        if missing:
            problems.append(f"library product {name} of {root_pkg.name} is not built for the {' and '.join(missing)} "
                            f"Simulator by any workflow (xcodebuild build -scheme {name})")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.normpath(os.path.join(HERE, "..", "..")))
    ap.add_argument("--check", action="store_true", help="check the workflows' xcodebuild -scheme arguments")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    if args.check:
        problems = check(root)
        for p in problems:
            print(p)
        uses = workflow_uses(root)
        print(f"schemes: {len(uses)} xcodebuild scheme uses in .github/workflows, {len(problems)} problems")
        return 1 if problems else 0
    for pkg_root in gate.find_package_roots(root):
        s = package_schemes(pkg_root)
        print(f"{os.path.relpath(pkg_root, root)} ({s.package.name})")
        for name, why in sorted(s.certain.items()):
            print(f"  {name}: {why}")
        if s.uncertain:
            print(f"  (not counted: {s.uncertain})")
        for e in s.errors:
            print(f"  error: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

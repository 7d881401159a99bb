#!/usr/bin/env python3
"""What a CI job resolved: every Package.resolved under ROOT, printed and copied.

    python3 Scripts/portability/resolved.py [ROOT] [--copy-to DIR]

Prints one line per pinned package of each Package.resolved (outside `.build*` folders):
the file, the package's identity, its version (or branch) and revision. With --copy-to,
copies each file there as `<folder>.Package.resolved` (`root`, `Examples-OrderApp`, …),
for the job to upload. Exit status 0 (1 only when a file cannot be read as JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys


def resolved_files(root: str) -> list:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".build") and d != ".git")
        if "Package.resolved" in filenames:
            out.append(os.path.join(dirpath, "Package.resolved"))
    return sorted(out)


def pins(path: str) -> list:
    """(identity, version or branch, revision) of each pin; version 1 files too."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    entries = data.get("pins") or (data.get("object") or {}).get("pins") or []
    out = []
    for pin in entries:
        identity = pin.get("identity") or pin.get("package") or "?"
        state = pin.get("state") or {}
        out.append((identity, state.get("version") or state.get("branch") or "-", (state.get("revision") or "")[:12]))
    return out


def label(root: str, path: str) -> str:
    folder = os.path.relpath(os.path.dirname(path), root)
    return "root" if folder == "." else folder.replace(os.sep, "-")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", default=".")
    ap.add_argument("--copy-to", help="copy each file here as <folder>.Package.resolved")
    args = ap.parse_args(argv)
    status = 0
    files = resolved_files(args.root)
    if not files:
        print("no Package.resolved was written")
    for path in files:
        name = label(args.root, path)
        try:
            for identity, version, revision in pins(path):
                print(f"{name}: {identity} {version} ({revision})")
        except (OSError, ValueError) as error:
            print(f"{name}: cannot read {path}: {error}", file=sys.stderr)
            status = 1
        if args.copy_to:
            os.makedirs(args.copy_to, exist_ok=True)
            shutil.copyfile(path, os.path.join(args.copy_to, f"{name}.Package.resolved"))
    return status


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Which Xcode and which simulator a macOS CI job uses, chosen from what the runner has.

GitHub's macOS images rotate Xcodes in and out (macos-15 carried Xcode 16.0-16.4 and
26.0.1-26.3 in 2026; macos-26 carries 26.x), so the workflow names a pattern and the Swift
version the job is there to test, never one exact path:

    python3 Scripts/portability/xcode.py select '26.*' 6.2   # prints /Applications/Xcode_26.3.app
    python3 Scripts/portability/xcode.py simulator iOS       # prints name=iPhone 16 / os=18.5 / udid=...

`select` takes the newest `/Applications/Xcode_<version>.app` whose version matches the
pattern and whose `swift --version` says Swift <swift> (6.1 matches 6.1 and 6.1.2, never
6.10), and fails, listing what it found, when none does. `simulator` takes the newest
installed runtime of the platform that the selected Xcode's SDK can run (its version is
at most the SDK's) and the first available iPhone (or Apple TV) in it, by name.

Python 3 standard library only; `test_xcode.py` runs it on recorded `simctl` output.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
from typing import Callable, Optional

APPS = "/Applications"
DEVICE_PREFIX = {"iOS": "iPhone", "tvOS": "Apple TV"}
SDK = {"iOS": "iphonesimulator", "tvOS": "appletvsimulator"}


def version_of(text: str) -> Optional[tuple]:
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", text)
    return tuple(int(x) for x in m.groups() if x is not None) if m else None


def pad(v: tuple) -> tuple:
    return tuple(v) + (0,) * (3 - len(v))


def installed_xcodes(apps: str = APPS) -> list:
    """(version, path) of each Xcode once, newest first. The runner images add symlinks
    (Xcode_26.1.app -> Xcode_26.1.1.app; Xcode_26.6.app -> Xcode_26.6_Release_Candidate_2.app):
    an app is named by its most precise `Xcode_<version>.app`."""
    best: dict = {}
    for path in glob.glob(os.path.join(apps, "Xcode_*.app")):
        m = re.fullmatch(r"Xcode_(\d+(?:\.\d+){0,2})\.app", os.path.basename(path))
        if not m:
            continue
        v = version_of(m.group(1))
        real = os.path.realpath(path)
        if real not in best or len(v) > len(best[real][0]):
            best[real] = (v, path)
    return sorted(best.values(), key=lambda e: pad(e[0]), reverse=True)


def swift_version(xcode: str) -> str:
    env = dict(os.environ, DEVELOPER_DIR=os.path.join(xcode, "Contents", "Developer"))
    out = subprocess.run(["xcrun", "swift", "--version"], env=env, capture_output=True, text=True)
    return out.stdout + out.stderr


def says_swift(version_text: str, swift: str) -> bool:
    return re.search(rf"Swift version {re.escape(swift)}(?:[.\s(]|$)", version_text) is not None


def select(pattern: str, swift: str, apps: str = APPS, swift_of: Callable[[str], str] = swift_version) -> tuple:
    """The newest Xcode matching `pattern` (a shell pattern over its version, `26.*`)
    that ships Swift `swift`: (path, its `swift --version` line). Raises LookupError."""
    rx = re.compile(re.escape(pattern).replace(r"\*", r".*").replace(r"\?", ".") + r"$")
    tried = []
    for v, path in installed_xcodes(apps):
        name = ".".join(map(str, v))
        if not rx.match(name):
            continue
        text = swift_of(path)
        first = next((ln for ln in text.splitlines() if "Swift version" in ln), text.strip()[:80])
        if says_swift(text, swift):
            return path, first
        tried.append(f"{path}: {first}")
    found = ", ".join(os.path.basename(p) for _, p in installed_xcodes(apps)) or "none"
    raise LookupError(f"no Xcode matching {pattern} ships Swift {swift} (tried: {'; '.join(tried) or 'none'}; installed: {found})")


def pick_simulator(platform: str, sdk_version: tuple, runtimes: dict, devices: dict) -> dict:
    """From `xcrun simctl list runtimes -j` and `xcrun simctl list devices available -j`:
    the first available device of the newest runtime of `platform` whose version is at
    most `sdk_version`. Raises LookupError."""
    prefix = DEVICE_PREFIX[platform]
    usable = []
    for rt in runtimes.get("runtimes", []):
        ident = rt.get("identifier", "")
        plat = rt.get("platform") or (re.search(r"SimRuntime\.(\w+?)-", ident) or [None, ""])[1]
        if plat != platform or not rt.get("isAvailable", True):
            continue
        v = version_of(rt.get("version", ""))
        if v is None or pad(v)[:2] > pad(sdk_version)[:2]:
            continue
        usable.append((pad(v), rt.get("version"), ident))
    for _, shown, ident in sorted(usable, reverse=True):
        for dev in devices.get("devices", {}).get(ident, []):
            if dev.get("isAvailable", True) and dev.get("name", "").startswith(prefix):
                return {"name": dev["name"], "os": shown, "udid": dev["udid"]}
    have = ", ".join(sorted({i for _, _, i in usable})) or "none"
    raise LookupError(f"no available {prefix} simulator on a {platform} runtime up to {'.'.join(map(str, sdk_version))} (runtimes: {have})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("select", help="print the newest Xcode matching PATTERN that ships Swift SWIFT")
    s.add_argument("pattern")
    s.add_argument("swift")
    m = sub.add_parser("simulator", help="print name=, os= and udid= of a simulator to test on")
    m.add_argument("platform", choices=sorted(DEVICE_PREFIX))
    args = ap.parse_args(argv)
    try:
        if args.command == "select":
            path, line = select(args.pattern, args.swift)
            print(f"{path}: {line}", file=sys.stderr)
            print(path)
        else:
            sdk = subprocess.run(["xcrun", "--sdk", SDK[args.platform], "--show-sdk-version"],
                                 capture_output=True, text=True, check=True).stdout.strip()
            runtimes = json.loads(subprocess.run(["xcrun", "simctl", "list", "runtimes", "-j"],
                                                 capture_output=True, text=True, check=True).stdout)
            devices = json.loads(subprocess.run(["xcrun", "simctl", "list", "devices", "available", "-j"],
                                                capture_output=True, text=True, check=True).stdout)
            chosen = pick_simulator(args.platform, version_of(sdk) or (0,), runtimes, devices)
            for key in ("name", "os", "udid"):
                print(f"{key}={chosen[key]}")
    except LookupError as error:
        print(f"xcode.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

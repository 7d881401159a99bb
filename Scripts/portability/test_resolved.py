"""Tests of resolved.py: Package.resolved files made in a temporary folder.

    python3 -m unittest discover -s Scripts/portability -p 'test_*.py'
"""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import resolved  # noqa: E402

V3 = {"originHash": "x", "version": 3, "pins": [
    {"identity": "swift-log", "kind": "remoteSourceControl", "location": "https://github.com/apple/swift-log.git",
     "state": {"revision": "ce592ae52f982c847a4efc0dd881cc9eb32d29f2", "version": "1.6.4"}},
]}
V1 = {"version": 1, "object": {"pins": [
    {"package": "Yams", "repositoryURL": "https://github.com/jpsim/Yams.git",
     "state": {"branch": None, "revision": "0123456789abcdef", "version": "6.0.1"}},
]}}


class Resolved(unittest.TestCase):
    def test_every_file_outside_build_folders_is_printed_and_copied(self):
        with tempfile.TemporaryDirectory() as root:
            for rel, data in (("Package.resolved", V3), ("Examples/OrderApp/Package.resolved", V1),
                              (".build-examples/checkouts/x/Package.resolved", V3)):
                path = os.path.join(root, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    json.dump(data, f)
            out = io.StringIO()
            with redirect_stdout(out):
                status = resolved.main([root, "--copy-to", os.path.join(root, "artifacts")])
            self.assertEqual(status, 0)
            self.assertEqual(out.getvalue().splitlines(), [
                "Examples-OrderApp: Yams 6.0.1 (0123456789ab)",
                "root: swift-log 1.6.4 (ce592ae52f98)",
            ])
            self.assertEqual(sorted(os.listdir(os.path.join(root, "artifacts"))),
                             ["Examples-OrderApp.Package.resolved", "root.Package.resolved"])


if __name__ == "__main__":
    unittest.main()

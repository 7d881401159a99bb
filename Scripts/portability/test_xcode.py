"""Tests of xcode.py: Xcode selection over a made-up /Applications, simulator choice over
recorded `simctl` JSON.

    python3 -m unittest discover -s Scripts/portability -p 'test_*.py'
"""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import xcode  # noqa: E402

SWIFT = {
    "Xcode_16.3.app": "Apple Swift version 6.1 (swiftlang-6.1.0.110.21 clang-1700.0.13.3)",
    "Xcode_16.4.app": "Apple Swift version 6.1.2 (swiftlang-6.1.2.1.2 clang-1700.0.13.5)",
    "Xcode_26.1.1.app": "Apple Swift version 6.2.1 (swiftlang-6.2.1.4.8 clang-1700.4.4.1)",
    "Xcode_26.3.app": "Apple Swift version 6.2.4 (swiftlang-6.2.4.1.4 clang-1700.6.4.2)",
    "Xcode_26.4.1.app": "Apple Swift version 6.3 (swiftlang-6.3.0.123.5 clang-2100.0.123.102)",
}


class Select(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.apps = self._tmp.name
        for name in SWIFT:
            os.mkdir(os.path.join(self.apps, name))
        # the images' symlinks: a shorter spelling, and a release candidate named by its version
        os.symlink(os.path.join(self.apps, "Xcode_26.1.1.app"), os.path.join(self.apps, "Xcode_26.1.app"))
        os.mkdir(os.path.join(self.apps, "Xcode_26.6_Release_Candidate_2.app"))
        os.symlink(os.path.join(self.apps, "Xcode_26.6_Release_Candidate_2.app"), os.path.join(self.apps, "Xcode_26.6.app"))
        os.mkdir(os.path.join(self.apps, "Xcode.app"))

    def tearDown(self):
        self._tmp.cleanup()

    def swift_of(self, path):
        name = os.path.basename(os.path.realpath(path))
        return SWIFT.get(name, "Apple Swift version 6.3.2 (swiftlang-6.3.2)")

    def test_the_newest_xcode_of_the_pattern_that_ships_the_swift(self):
        path, line = xcode.select("26.*", "6.2", self.apps, self.swift_of)
        self.assertEqual(os.path.basename(path), "Xcode_26.3.app")
        self.assertIn("6.2.4", line)
        path, _ = xcode.select("16.*", "6.1", self.apps, self.swift_of)
        self.assertEqual(os.path.basename(path), "Xcode_16.4.app")

    def test_swift_6_1_never_matches_6_10_nor_a_pattern_of_another_major(self):
        self.assertTrue(xcode.says_swift("Apple Swift version 6.1.2 (swiftlang", "6.1"))
        self.assertTrue(xcode.says_swift("Apple Swift version 6.1 (swiftlang", "6.1"))
        self.assertFalse(xcode.says_swift("Apple Swift version 6.10 (swiftlang", "6.1"))
        with self.assertRaises(LookupError) as raised:
            xcode.select("26.*", "6.1", self.apps, self.swift_of)
        self.assertIn("no Xcode matching 26.* ships Swift 6.1", str(raised.exception))
        self.assertIn("Xcode_26.3.app", str(raised.exception))

    def test_each_app_is_counted_once_by_its_most_precise_name(self):
        names = [os.path.basename(p) for _, p in xcode.installed_xcodes(self.apps)]
        self.assertEqual(names, ["Xcode_26.6.app", "Xcode_26.4.1.app", "Xcode_26.3.app", "Xcode_26.1.1.app",
                                 "Xcode_16.4.app", "Xcode_16.3.app"])


RUNTIMES = {"runtimes": [
    {"identifier": "com.apple.CoreSimulator.SimRuntime.iOS-18-5", "version": "18.5", "platform": "iOS", "isAvailable": True},
    {"identifier": "com.apple.CoreSimulator.SimRuntime.iOS-18-6", "version": "18.6", "platform": "iOS", "isAvailable": True},
    {"identifier": "com.apple.CoreSimulator.SimRuntime.iOS-26-2", "version": "26.2", "platform": "iOS", "isAvailable": True},
    {"identifier": "com.apple.CoreSimulator.SimRuntime.tvOS-26-2", "version": "26.2", "isAvailable": True},
    {"identifier": "com.apple.CoreSimulator.SimRuntime.iOS-26-4", "version": "26.4.1", "platform": "iOS", "isAvailable": False},
]}
DEVICES = {"devices": {
    "com.apple.CoreSimulator.SimRuntime.iOS-18-5": [
        {"name": "iPad (A16)", "udid": "A-185", "isAvailable": True},
        {"name": "iPhone 16", "udid": "P-185", "isAvailable": True}],
    "com.apple.CoreSimulator.SimRuntime.iOS-18-6": [{"name": "iPhone 16 Pro", "udid": "P-186", "isAvailable": True}],
    "com.apple.CoreSimulator.SimRuntime.iOS-26-2": [{"name": "iPhone 17", "udid": "P-262", "isAvailable": True}],
    "com.apple.CoreSimulator.SimRuntime.tvOS-26-2": [{"name": "Apple TV 4K (3rd generation)", "udid": "T-262", "isAvailable": True}],
    "com.apple.CoreSimulator.SimRuntime.iOS-26-4": [{"name": "iPhone 17e", "udid": "P-264", "isAvailable": True}],
}}


class Simulator(unittest.TestCase):
    def test_the_newest_runtime_the_sdk_can_run_and_its_first_iphone(self):
        self.assertEqual(xcode.pick_simulator("iOS", (18, 5), RUNTIMES, DEVICES),
                         {"name": "iPhone 16", "os": "18.5", "udid": "P-185"})
        self.assertEqual(xcode.pick_simulator("iOS", (26, 5), RUNTIMES, DEVICES),
                         {"name": "iPhone 17", "os": "26.2", "udid": "P-262"})
        self.assertEqual(xcode.pick_simulator("tvOS", (26, 2), RUNTIMES, DEVICES)["udid"], "T-262")

    def test_no_runtime_the_sdk_can_run_is_an_error_that_lists_what_there_is(self):
        with self.assertRaises(LookupError) as raised:
            xcode.pick_simulator("iOS", (17, 0), RUNTIMES, DEVICES)
        self.assertIn("no available iPhone simulator on a iOS runtime up to 17.0", str(raised.exception))


if __name__ == "__main__":
    unittest.main()

// The drift probes (`DriftCheck`, `mock-server drift`) compare a real server with the
// built-in APIs' simulators, so they live beside those APIs in `BuiltInDrift`. Re-exported
// here for code that imports them from `MockRecording`.
@_exported import BuiltInDrift

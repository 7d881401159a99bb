// `Scenarios` is kept for existing imports: it re-exports the engine core (`MockCore`) and
// the built-in Restaurant and Open Market APIs (`BuiltInMockAPIs`), which it held before
// they became modules of their own. New code imports those two instead: `MockCore` alone
// for an engine serving only its own APIs. Swift has no attribute that deprecates a
// module, so this comment, the README's module table and the `MockCore` documentation say so.
@_exported import BuiltInMockAPIs
@_exported import MockCore

// `ContractTests` is kept for existing imports: it re-exports the generic harness
// (`ContractHarness`: runner, reports, checks, the trait's servers, the streaming and
// WebSocket suites) and the built-in APIs' suites (`BuiltInContracts`: the Restaurant and
// Open Market suites, providers and reference providers), which it held together before.
// Code that checks a client of its own API alone may import `ContractHarness` instead.
// Swift has no attribute that deprecates a module; the README and the harness's
// documentation say so.
@_exported import BuiltInContracts
@_exported import ContractHarness

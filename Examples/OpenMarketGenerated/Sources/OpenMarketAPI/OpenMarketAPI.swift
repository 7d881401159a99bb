// The Open Market client is generated at build time: swift-openapi-generator's plugin reads
// openapi.json and openapi-generator-config.yaml beside this file and writes `Client`,
// `Operations` and `Components` (internal, as in an app target). Regenerate openapi.json
// with `swift run mock-server openapi --api openmarket --variant openmarket-2022-01` (see
// README.md); never edit the generated code.

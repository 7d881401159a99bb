// The server listens on BSD sockets (SwiftNIO's POSIX transport), and the harness's
// transports need a listener too. Ordinary watchOS apps may not open BSD sockets (only
// audio-streaming apps may use networking beyond URLSession), so the package declares
// macOS, iOS and tvOS only (README › Platforms), and a watchOS build says why at once
// instead of failing deep inside a dependency.
#if os(watchOS)
#error("MockServer does not support watchOS: its server listens on BSD sockets, which watchOS apps may not open. See README › Platforms.")
#endif

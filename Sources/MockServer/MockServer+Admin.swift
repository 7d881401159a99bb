// The admin API (`/__admin`), the dashboard and the CA's profiles never touch a socket,
// so they are the `MockAdmin` module; the server mounts them. Re-exported so code that
// uses `AdminAPI`, `CACertificate` or `MobileConfig` through `MockServer` keeps compiling.
@_exported import MockAdmin

import Foundation
import FuzzSupport
import Scenarios

/// Multipart parsing (Open Market's create and update) on arbitrary bytes: never a crash,
/// and whatever parses holds together (every part's bytes come from the body). The first
/// input byte picks the boundary's shape, so both well-formed and hostile headers are tried.
enum FuzzMultipart {
    static let boundaries = ["Boundary-123", "----WebKitFormBoundary7MA4YWxkTrZu0gW", "x", "\"quoted boundary\"", "", "a;b=c"]

    static func check(_ data: Data) {
        guard let first = data.first else { return }
        let boundary = boundaries[Int(first) % boundaries.count]
        let body = data.dropFirst()
        let contentType = first & 0x80 == 0 ? "multipart/form-data; boundary=\(boundary)" : "multipart/form-data; charset=utf-8; boundary=\(boundary); x=1"
        guard let form = try? MultipartForm.parse(Data(body), contentType: contentType) else { return }
        let total = form.parts.reduce(0) { $0 + $1.body.count }
        if total > body.count { FuzzDriver.fail("parts hold \(total) bytes from a body of \(body.count)") }
    }
}

#if FUZZING
// libFuzzer's own `main` calls this; SwiftPM's `main` alias (`fuzz_multipart_main`) hands the
// process to libFuzzer with the same target. Both paths run `FuzzMultipart.check`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzMultipart.check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("fuzz_multipart_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.runLibFuzzer(argc, argv) { start, count in fuzzOne(start, count) }
}
#else
@main
enum Replay {
    static func main() {
        FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), FuzzMultipart.check)
    }
}
#endif

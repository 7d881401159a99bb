import Foundation

/// Runs one fuzz body over inputs: under libFuzzer (built with `-sanitize=fuzzer
/// -DFUZZING`) libFuzzer calls it; in an ordinary build, `replay` runs it over corpus
/// files, so every input that ever crashed stays a regression check (`Fuzz/run.sh`).
public enum FuzzDriver {
    /// Runs `body` over every file in `paths` (files or folders); returns how many ran.
    @discardableResult
    public static func replay(_ paths: [String], _ body: (Data) -> Void) -> Int {
        var count = 0
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                body(data)
                count += 1
            }
        }
        FileHandle.standardError.write(Data("replayed \(count) inputs\n".utf8))
        return count
    }

    /// A finding: prints what differs and stops the process, so libFuzzer saves the input.
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("FUZZ FINDING: \(message)\n".utf8))
        abort()
    }
}

#if FUZZING
/// libFuzzer's entry for programs that have their own `main` (SwiftPM names an
/// executable's entry `<module>_main` and links `main` to it).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

extension FuzzDriver {
    /// Hands the process to libFuzzer with `callback` as the target.
    public static func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, callback)
    }
}
#endif

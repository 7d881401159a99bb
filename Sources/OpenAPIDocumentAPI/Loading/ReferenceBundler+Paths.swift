import Foundation

/// File paths as references name them: joined to the folder of the file that names them,
/// and their last component.
extension ReferenceBundler {
    /// `location` (a relative or absolute file path) read from the folder of `file`, with
    /// its `.` and `..` segments resolved.
    static func join(_ location: String, relativeTo file: String) -> String {
        let base = location.hasPrefix("/") ? "" : String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)])
        var parts: [Substring] = []
        for part in (base + "/" + location).split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func lastComponent(_ path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// A file's name without its extension.
    static func baseName(_ path: String) -> String {
        let name = lastComponent(path)
        return name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
    }
}

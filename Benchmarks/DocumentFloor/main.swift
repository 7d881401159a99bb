// The parse floor and the mock's own reading of OpenAPI documents, in one process, for
// Benchmarks/documents.py: `document-floor ROUNDS FILE…` prints one line per file with
// the median seconds of Foundation's JSONSerialization on it (JSON files), of the
// package's own JSON parser, and of `OpenAPIDocumentAPI.read` (parse, references,
// repairs, operations, the request checker), each over ROUNDS rounds.
import Foundation
import OpenAPIDocumentAPI
import Scenarios

func median(_ rounds: Int, _ work: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        try work()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return times.sorted()[times.count / 2]
}

let arguments = CommandLine.arguments.dropFirst()
guard let rounds = arguments.first.flatMap(Int.init), arguments.count > 1 else {
    FileHandle.standardError.write(Data("usage: document-floor ROUNDS FILE…\n".utf8))
    exit(2)
}
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    let data = try Data(contentsOf: url)
    var fields = ["file=\(path)", "bytes=\(data.count)"]
    if url.pathExtension.lowercased() == "json" {
        fields.append(String(format: "jsonserialization=%.4f", try median(rounds) { _ = try JSONSerialization.jsonObject(with: data) }))
        fields.append(String(format: "jsonvalue=%.4f", median(rounds) { _ = JSONValue(parsing: data) }))
    }
    var operations = 0
    var files = 0
    var notes = 0
    let read = try median(rounds) {
        let document = try OpenAPIDocumentAPI.read(url)
        (operations, files, notes) = (document.operationCount, document.fileCount, document.notes.count)
    }
    fields += [String(format: "read=%.4f", read), "operations=\(operations)", "files=\(files)", "notes=\(notes)"]
    print(fields.joined(separator: " "))
}

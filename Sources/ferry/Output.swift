import Foundation
import FerryKit

/// Buffered standard output: one write per 64 KB instead of one per line, so printing
/// 100,000 results costs little next to computing them.
struct Output {
    private var buffer = ""

    init() {
        buffer.reserveCapacity(1 << 16)
    }

    mutating func line(_ text: String) {
        buffer += text
        buffer += "\n"
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Writes to standard error, for messages that are not results.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// A JSON string literal.
func jsonString(_ text: String) -> String {
    Escaping.javaScriptString(text)
}

/// Reads a file named on the command line, or fails with a message a person can act on.
func readFile(_ path: String) throws -> Data {
    guard FileManager.default.fileExists(atPath: path) else {
        printError("error: no such file: \(path)")
        throw ExitCodes.badInput
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        printError("error: cannot read \(path)")
        throw ExitCodes.badInput
    }
    return data
}

import ArgumentParser

enum ExitCodes {
    /// The answer is "no" (a lint error, a missing grant).
    static let negative = ExitCode(1)
    /// The input could not be used at all (missing file, not JSON, malformed argument).
    static let badInput = ExitCode(2)
}

import CFuzz
import Foundation

/// The entry point every fuzz target's `main.swift` calls (scripts/fuzz; docs/protocols/fuzzing.md):
/// it hands libFuzzer's driver the command line and the harness, and exits with the driver's status. A
/// harness returns 0; a trap or an AddressSanitizer report in the code under test is what libFuzzer records
/// as a crash (and writes the input to `crash-…`).
public enum Fuzzer {
  /// libFuzzer's callback type (`int (*)(const uint8_t *, size_t)`).
  public typealias Harness = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

  public static func run(_ harness: Harness) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, harness))
  }

  /// The input as an array (libFuzzer passes a null pointer for the empty input).
  public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
  }

  /// A breach of a property the harness checks (not a crash of the code under test): printed, then a trap so
  /// libFuzzer keeps the input.
  public static func fail(_ message: String, _ input: [UInt8]) -> Never {
    FileHandle.standardError.write(Data("fuzz property failed: \(message)\n".utf8))
    fatalError("fuzz property failed: \(message) (input \(input.count) bytes)")
  }
}

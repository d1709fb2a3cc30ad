import Foundation
import Glibc

/// What the benchmarks that run the command line as a process share: the release `beacon-provision` built
/// next to this benchmark, and a temporary folder of its own for each run's fleet, profile and state.
enum BenchWorkspace {
  /// The release CLI; without it the benchmark says how to build it and exits 2.
  static func releaseCLI() -> String {
    guard let binary = CLIScalingRun.binary() else {
      print("no beacon-provision next to \(CommandLine.arguments[0]): build it first (swift build -c release)")
      exit(2)
    }
    return binary
  }

  /// A new folder `bench-NAME-<uuid>` under the temporary directory (the caller removes it).
  static func folder(_ name: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(name)-\(UUID().uuidString)")
      .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }
}

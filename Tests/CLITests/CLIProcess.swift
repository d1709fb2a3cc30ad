import Foundation
import TestServers

/// Runs the built CLI (`ApplyCrashTests.binary`) to its end and returns its exit status, standard output and
/// standard error; both pipes are read as they fill, so a full pipe never blocks the child. `environment`
/// nil inherits this process's.
enum CLIProcess {
  static func run(_ arguments: [String], environment: [String: String]? = nil) async throws
    -> (status: Int32, output: String, errors: String)
  {
    // nil inherits this process's environment; a dictionary replaces it.
    try await ChildProcess.run(
      ApplyCrashTests.binary, arguments, environment: environment ?? [:], inheriting: environment == nil)
  }
}

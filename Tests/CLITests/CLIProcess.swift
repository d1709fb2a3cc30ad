import Foundation

/// Runs the built CLI (`ApplyCrashTests.binary`) to its end and returns its exit status, standard output and
/// standard error; both pipes are read as they fill, so a full pipe never blocks the child. `environment`
/// nil inherits this process's.
enum CLIProcess {
  static func run(_ arguments: [String], environment: [String: String]? = nil) async throws
    -> (status: Int32, output: String, errors: String)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ApplyCrashTests.binary)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let (output, errors) = (Pipe(), Pipe())
    process.standardOutput = output
    process.standardError = errors
    let (outputLines, errorLines) = (ProcessLines.stream(output), ProcessLines.stream(errors))
    let collected = Task { () -> (String, String) in
      var (out, err) = ([String](), [String]())
      for await line in outputLines { out.append(line) }
      for await line in errorLines { err.append(line) }
      return (out.joined(separator: "\n"), err.joined(separator: "\n"))
    }
    let exit = try ProcessExit.run(process)
    await exit.wait()
    let (out, err) = await collected.value
    return (process.terminationStatus, out, err)
  }
}

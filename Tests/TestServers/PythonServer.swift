import Foundation

/// Starts a loopback test server written in Python that prints its port on its first stdout line and exits
/// when its standard input closes (with the test process, even a killed one): the fault-injecting server of
/// HTTPTests and the loopback blukii Info Manager. Returns the running process and its port.
public enum PythonServer {
  public static func start(script: String, arguments: [String] = []) async throws -> (
    process: SpawnedProcess, port: Int
  ) {
    // Standard input is a pipe this process holds open for the server's life.
    let child = try ChildProcess.start(
      "/usr/bin/python3", [script] + arguments, errors: .discarded, input: .pipe(Pipe()))
    let process = child.process
    var lines = child.output!.makeAsyncIterator()
    let line = await lines.next() ?? ""
    guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      process.terminate()
      throw ServerError("\(URL(fileURLWithPath: script).lastPathComponent) did not print its port: \(line)")
    }
    return (process, port)
  }
}

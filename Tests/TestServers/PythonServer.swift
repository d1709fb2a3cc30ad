import Foundation
import OwnThreads

/// Starts a loopback test server written in Python that prints its port on its first stdout line and exits
/// when its standard input closes (with the test process, even a killed one): the fault-injecting server of
/// HTTPTests and the loopback blukii Info Manager. Returns the running process and its port.
public enum PythonServer {
  public static func start(script: String, arguments: [String] = []) async throws -> (process: Process, port: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [script] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = Pipe()
    try process.run()
    let line: String = await OwnThread.run("python-server-port") {
      var text = ""
      while !text.contains("\n") {
        let data = output.fileHandleForReading.availableData
        if data.isEmpty { break }
        text += String(decoding: data, as: UTF8.self)
      }
      return text
    }
    guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      process.terminate()
      throw ServerError("\(URL(fileURLWithPath: script).lastPathComponent) did not print its port: \(line)")
    }
    return (process, port)
  }
}

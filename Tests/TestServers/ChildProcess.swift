import Foundation

/// A process a test starts — the CLI under test, a script, a server, tmux — started the one way the tests
/// start processes: standard output and standard error read line by line as they come (`ProcessLines`, a
/// thread per pipe, so a full pipe never stalls the child, even when the test reads neither), its end
/// awaited without holding a cooperative thread (`ProcessExit`).
public struct ChildProcess: Sendable {
  /// What happens to one of the child's output streams.
  public enum Stream: Sendable {
    /// Read line by line into `output` or `errors`.
    case lines
    /// Sent to /dev/null.
    case discarded
    /// Written to an open file (a log the test reads afterwards, or a child that must never block on a pipe
    /// nobody reads); standard output and standard error may share one.
    case file(FileHandle)
  }

  /// Where the child's standard input comes from.
  public enum Input: Sendable {
    /// This process's own.
    case inherited
    /// /dev/null: the child reads end of file at once.
    case none
    /// A pipe the test writes.
    case pipe(Pipe)
    /// This text, written whole at the start and then closed (end of file). Small texts only: it must fit the
    /// pipe's buffer (64 KiB), as it is written before the child has read any of it.
    case text(String)
  }

  public let process: Process
  /// Standard output's lines (nil when discarded); finishes at end of file.
  public let output: AsyncStream<String>?
  /// Standard error's lines (nil when discarded); finishes at end of file.
  public let errors: AsyncStream<String>?
  public let exit: ProcessExit

  /// Starts `executable`. `environment` is added to this process's own, or with `inheriting: false` is
  /// the whole environment; `input` is where standard input comes from.
  public static func start(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], inheriting: Bool = true,
    output: Stream = .lines, errors: Stream = .lines, input: Input = .inherited
  ) throws -> ChildProcess {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !inheriting {
      process.environment = environment
    } else if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    switch input {
    case .inherited: break
    case .none: process.standardInput = FileHandle.nullDevice
    case .pipe(let pipe): process.standardInput = pipe
    case .text: process.standardInput = Pipe()
    }
    func attach(_ stream: Stream) -> (Any, AsyncStream<String>?) {
      switch stream {
      case .lines:
        let pipe = Pipe()
        return (pipe, ProcessLines.stream(pipe))
      case .discarded: return (FileHandle.nullDevice, nil)
      case .file(let handle): return (handle, nil)
      }
    }
    let (outputSink, outputLines) = attach(output)
    let (errorSink, errorLines) = attach(errors)
    process.standardOutput = outputSink
    process.standardError = errorSink
    let exit = try ProcessExit.run(process)
    if case .text(let text) = input, let pipe = process.standardInput as? Pipe {
      try pipe.fileHandleForWriting.write(contentsOf: Data(text.utf8))
      try pipe.fileHandleForWriting.close()
    }
    return ChildProcess(process: process, output: outputLines, errors: errorLines, exit: exit)
  }

  /// Runs `executable` to its end and returns its exit status and everything it wrote, each stream's lines
  /// joined with "\n".
  public static func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], inheriting: Bool = true,
    input: Input = .inherited
  ) async throws -> (status: Int32, output: String, errors: String) {
    let child = try start(executable, arguments, environment: environment, inheriting: inheriting, input: input)
    async let output = Self.collect(child.output)
    async let errors = Self.collect(child.errors)
    let (out, err) = await (output, errors)
    return (await child.wait(), out, err)
  }

  /// Waits for the process to end and returns its exit status (or the signal that ended it).
  public func wait() async -> Int32 {
    await exit.wait()
    return process.terminationStatus
  }

  /// The process id, for `kill`.
  public var pid: Int32 { process.processIdentifier }

  private static func collect(_ lines: AsyncStream<String>?) async -> String {
    guard let lines else { return "" }
    var all: [String] = []
    for await line in lines { all.append(line) }
    return all.joined(separator: "\n")
  }
}

import CPipe
import Foundation
import OwnThreads

/// A process a test starts — the CLI under test, a script, a server, tmux — started the one way the tests
/// start processes (`SpawnedProcess`: posix_spawn, every other descriptor closed in the child, signals at
/// their defaults): standard output and standard error read line by line as they come (`ProcessLines`, a
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

  public let process: SpawnedProcess
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
    let variables = inheriting ? ProcessInfo.processInfo.environment.merging(environment) { $1 } : environment
    // Pipes made here are close-on-exec (no other child inherits them); the child's end is duplicated onto
    // its descriptor, and this process's copy of that end is closed once the child runs.
    var childEnds: [Int32] = []
    var readers: [Int32?] = [nil, nil]
    func pipe() throws -> (read: Int32, write: Int32) {
      var fds: [Int32] = [0, 0]
      guard bp_pipe2(&fds, O_CLOEXEC) == 0 else { throw ServerError("pipe2: \(String(cString: strerror(errno)))") }
      return (fds[0], fds[1])
    }
    func source(_ stream: Stream, _ index: Int) throws -> SpawnActions.Source {
      switch stream {
      case .lines:
        let (read, write) = try pipe()
        readers[index] = read
        childEnds.append(write)
        return .descriptor(write)
      case .discarded: return .null
      case .file(let handle): return .descriptor(handle.fileDescriptor)
      }
    }
    var textWriter: Int32?
    let inputSource: SpawnActions.Source
    switch input {
    case .inherited: inputSource = .inherited
    case .none: inputSource = .null
    case .pipe(let pipe): inputSource = .descriptor(pipe.fileHandleForReading.fileDescriptor)
    case .text:
      let (read, write) = try pipe()
      childEnds.append(read)
      textWriter = write
      inputSource = .descriptor(read)
    }
    let actions = SpawnActions(input: inputSource, output: try source(output, 0), errors: try source(errors, 1))
    defer { for fd in childEnds { close(fd) } }
    let process: SpawnedProcess
    do {
      var inputPipe: Pipe?
      if case .pipe(let pipe) = input { inputPipe = pipe }
      process = try SpawnedProcess(
        executable, arguments, environment: variables, actions: actions, inputPipe: inputPipe)
    } catch {
      for fd in readers.compactMap({ $0 }) + [textWriter].compactMap({ $0 }) { close(fd) }
      throw error
    }
    if case .text(let text) = input, let fd = textWriter {
      Interrupted.writeAll(fd, Array(text.utf8))
      close(fd)
    }
    return ChildProcess(
      process: process, output: readers[0].map { ProcessLines.stream(descriptor: $0) },
      errors: readers[1].map { ProcessLines.stream(descriptor: $0) }, exit: ProcessExit(process: process))
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

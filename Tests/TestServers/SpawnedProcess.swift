import CPipe
import Foundation
import OwnThreads
import Synchronization

/// A child process started with `posix_spawn`, the one way the tests start processes (through `ChildProcess`).
/// Foundation's `Process` is not used: its `run()` lists /proc/self/fd to close inherited descriptors and
/// copies each entry's name with its full declared size, reading past the end of readdir's buffer; under
/// AddressSanitizer that was a heap-buffer-overflow report, and in a plain full test run it once crashed the
/// whole test process (SIGSEGV in `Process.run`) when the buffer ended at an unmapped page. Here the child
/// closes every descriptor above 2 itself (`posix_spawn_file_actions_addclosefrom_np`), starts with every
/// signal at its default action and none blocked (a test process may ignore SIGTERM while a command test
/// runs in it, and a child would inherit that for good), and is reaped by a thread of its own (`waitpid`).
///
/// The members mirror `Process`'s (`isRunning`, `terminate()`, `terminationStatus`, …) so tests read alike.
public final class SpawnedProcess: Sendable {
  public enum TerminationReason: Sendable { case exit, uncaughtSignal }

  public let processIdentifier: Int32
  /// The command line without the executable.
  public let arguments: [String]?
  /// The pipe the test writes the child's standard input through, held as long as the child is: the Python
  /// servers end when it closes.
  private let inputPipe: Pipe?
  /// The raw `waitpid` status once reaped, and who waits for it.
  private let end = Mutex<(status: Int32?, waiters: [CheckedContinuation<Void, Never>])>((nil, []))

  /// Spawns `executable` with `arguments` and `environment` (the whole environment); `actions` sets up its
  /// standard descriptors. Throws the `posix_spawn` error.
  init(
    _ executable: String, _ arguments: [String], environment: [String: String], actions: SpawnActions,
    inputPipe: Pipe? = nil
  ) throws {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var every = sigset_t()
    sigfillset(&every)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &every)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var fileActions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&fileActions)
    defer { posix_spawn_file_actions_destroy(&fileActions) }
    actions.apply(to: &fileActions)
    bp_spawn_close_from(&fileActions, 3)

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var pid: pid_t = 0
    let code = posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
    guard code == 0 else {
      throw ServerError("cannot start \(executable): \(String(cString: strerror(code)))")
    }
    processIdentifier = pid
    self.arguments = arguments
    self.inputPipe = inputPipe
    let child = pid
    OwnThread.start("reap \(child)") { [self] in
      // Waits for the end without reaping (WNOWAIT), then reaps under the lock `signal(_:)` takes: until
      // then the pid cannot be reused, so a signal never reaches another process.
      var info = siginfo_t()
      _ = Interrupted.retry { waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) }
      let waiters = end.withLock { state in
        var status: Int32 = 0
        _ = Interrupted.retry { waitpid(child, &status, 0) }
        state.status = status
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume() }
    }
  }

  /// Returns once the process has ended and been reaped (`terminationStatus` is then valid).
  public func waitForEnd() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ended = end.withLock { state in
        if state.status != nil { return true }
        state.waiters.append(continuation)
        return false
      }
      if ended { continuation.resume() }
    }
  }

  public var isRunning: Bool { end.withLock { $0.status == nil } }

  /// Blocks the calling thread until the process has ended (never call it on the cooperative pool).
  public func waitUntilExit() {
    while isRunning { usleep(10_000) }
  }

  /// The exit status, or the number of the signal that ended it (as `Process` reports it); -1 while running.
  public var terminationStatus: Int32 {
    guard let status = end.withLock({ $0.status }) else { return -1 }
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
  }

  public var terminationReason: TerminationReason {
    (end.withLock { $0.status } ?? 0) & 0x7F == 0 ? .exit : .uncaughtSignal
  }

  /// SIGTERM, unless it has ended (its pid may then belong to another process).
  public func terminate() { signal(SIGTERM) }
  /// SIGINT, as Ctrl-C.
  public func interrupt() { signal(SIGINT) }

  public func signal(_ number: Int32) {
    end.withLock { state in
      // Under the lock: the reaper cannot reap it in between, so the pid is still this process's.
      if state.status == nil { _ = kill(processIdentifier, number) }
    }
  }
}

/// How a spawned child's standard input, output and error are set up.
struct SpawnActions {
  enum Source {
    /// This process's own descriptor.
    case inherited
    /// /dev/null.
    case null
    /// This descriptor of ours (a pipe's end or an open file), duplicated onto the child's.
    case descriptor(Int32)
  }

  var input: Source
  var output: Source
  var errors: Source

  func apply(to actions: inout posix_spawn_file_actions_t) {
    for (source, target) in [(input, STDIN_FILENO), (output, STDOUT_FILENO), (errors, STDERR_FILENO)] {
      switch source {
      case .inherited: break
      case .null:
        posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
      case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
      }
    }
  }
}

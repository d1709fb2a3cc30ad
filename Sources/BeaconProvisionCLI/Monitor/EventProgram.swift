import Glibc
import OwnThreads

/// Starts an event's `command` action (docs/guide/monitor.md, "Events"): the program at `argv[0]` (an absolute path, no
/// shell, no PATH search) with `argv` and `environment`, standard input from /dev/null, standard output and
/// error shared with the monitor. It is not waited for: a queue of its own blocks in `waitpid` (never a
/// thread of the cooperative pool) and reports how the program ended.
///
/// Why not Foundation's `Process`: on corelibs-foundation a `Process` that ran stays allocated with its
/// arguments, environment and termination handler (LeakSanitizer, MonitorCommandTests: indirect leaks from
/// `MonitorActions.run` per command), and a monitor runs for months, firing a command per event.
enum EventProgram {

  /// How the program ended: its exit status, or the signal that killed it.
  enum Ending: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)
  }

  struct SpawnError: Error, CustomStringConvertible {
    let code: Int32
    var description: String { String(cString: strerror(code)) }
  }

  /// Starts the program; `ended` is called once it has ended (on the thread that waited for it).
  static func start(_ argv: [String], environment: [String: String], ended: @escaping @Sendable (Ending) -> Void) throws
  {
    let arguments = argv.map { strdup($0) } + [nil]
    let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for p in arguments { free(p) }
      for p in variables { free(p) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var pid: pid_t = 0
    let code = posix_spawn(&pid, argv[0], &actions, nil, arguments, variables)
    guard code == 0 else { throw SpawnError(code: code) }
    let child = pid
    OwnThread.start("event-command \(child)") {
      var status: Int32 = 0
      _ = Interrupted.retry { waitpid(child, &status, 0) }
      // WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc's Swift overlay does not import (macros).
      let signal = status & 0x7f
      ended(signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal))
    }
  }
}

import Foundation
import Glibc
import OwnThreads

/// One command run as a user runs it — its own process — timed from just before it starts to its exit,
/// with its peak memory. The command runs under GNU time (`/usr/bin/time -f %M`), spawned with `posix_spawn`
/// and reaped with `waitpid`: time forks the command from its own small process, so the peak it reports is the
/// command's alone. (A process spawned straight from this benchmark would report the benchmark's own peak:
/// Linux carries the peak of the memory it replaces at `exec` into the new program's `ru_maxrss`.) Time's own
/// start-up is inside every measurement alike. Standard output and error go to `/dev/null` unless `output`
/// and `errors` name files. Used where a benchmark sets our whole command against another program's
/// (`firmware-fetch`).
struct MeasuredCommand {
  struct Outcome {
    var status: Int32
    var elapsed: Duration
    /// Peak resident set size, KiB.
    var peakKiB: Int
  }

  /// Runs `argv` (its first element an absolute path) on a blocking-work thread.
  static func run(_ argv: [String], output: String? = nil, errors: String? = nil) async throws -> Outcome {
    try await BlockingIO.run { try spawnAndWait(argv, output: output, errors: errors) }
  }

  private static func spawnAndWait(_ argv: [String], output: String?, errors: String?) throws -> Outcome {
    let peakFile = NSTemporaryDirectory() + "bench-peak-\(UUID().uuidString)"
    defer { unlink(peakFile) }
    let timed = ["/usr/bin/time", "-f", "%M", "-o", peakFile] + argv
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errors ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var cArguments = timed.map { strdup($0) } + [nil]
    defer { for pointer in cArguments { free(pointer) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let spawned = posix_spawn(&pid, timed[0], &actions, nil, &cArguments, environ)
    guard spawned == 0 else { throw BenchError("cannot start \(timed[0]): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { throw BenchError("waitpid for \(argv[0]): \(String(cString: strerror(errno)))") }
    }
    let elapsed = ContinuousClock.now - start
    // WIFEXITED / WEXITSTATUS, which Swift's Glibc module does not import (they are macros). GNU time exits
    // with the command's status.
    let exited = status & 0x7F == 0
    let report = (try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? ""
    // Time writes "Command exited with non-zero status N" before the figure when the command failed.
    guard let peak = report.split(separator: "\n").last.flatMap({ Int($0) }) else {
      throw BenchError("/usr/bin/time reported no peak memory for \(argv[0]): \(report.debugDescription)")
    }
    return Outcome(status: exited ? (status >> 8) & 0xFF : -(status & 0x7F), elapsed: elapsed, peakKiB: peak)
  }
}

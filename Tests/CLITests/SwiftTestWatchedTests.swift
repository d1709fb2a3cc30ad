import Foundation
import TestServers
import Testing

/// `scripts/swift-test-watched` (the hang watcher of `scripts/test` and `scripts/sanitizers`) around a stand-in
/// test run: a script that prints one "started" line, starts a child in a session of its own (as `swift test`
/// and Foundation's `Process` start theirs in process groups of their own) which starts a grandchild, and then
/// waits for ever. When the watcher declares the hang it writes every thread's backtrace of every process the
/// run started to OUTPUT.hang-N.txt and prints a summary; whether it ends by a hang, by the run's own end or by
/// a SIGTERM sent to it, no process the run started outlives it (two TSan test processes were once found
/// running 13 and 21 minutes after `scripts/test` had exited).
@Suite("scripts/swift-test-watched", .timeLimit(.minutes(3))) struct SwiftTestWatchedTests {
  /// A scratch directory with the stand-in run; `pids` collects the pid of every process it starts. The run goes
  /// on only once all four are started: on a loaded CI machine the session's grandchild was not forked yet
  /// when a run that ends by itself had ended, so the watcher rightly found two left behind, not three.
  struct Sandbox {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("watched-\(UUID().uuidString)")
    var pids: URL { root.appendingPathComponent("pids") }
    var output: URL { root.appendingPathComponent("output.txt") }

    init(hangs: Bool) throws {
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
      let tail = hangs ? "wait\n" : "echo \"Test run with 1 tests passed\"\n"
      try TestScriptTests.Sandbox.executable(
        root.appendingPathComponent("run"),
        """
        #!/bin/bash
        echo "◇ Test hangsForGood() started."
        setsid bash -c 'echo $$ >> "$0"; sleep 1000 & echo $! >> "$0"; wait' "$1" &
        echo $$ >> "$1"
        sleep 1000 &
        echo $! >> "$1"
        until [ "$(wc -l < "$1")" -ge 4 ]; do sleep 0.05; done

        """ + tail)
    }

    /// Starts the watcher (1 s polls, 2 s of silence is a hang, 1 s between SIGTERM and SIGKILL), as a shell
    /// started from a terminal would be: SIGTERM, SIGINT and SIGHUP at their default action and unblocked.
    /// A child inherits an ignored signal and the spawning thread's blocked mask, and this test process is not
    /// a terminal: a command test running in process meanwhile (`SignalCancellation`) ignores SIGTERM for its
    /// scan, and a watcher started then ignored the test's SIGTERM for good (bash cannot undo a signal ignored
    /// at its start) — a clean-clone CI run hung on it. `ChildProcess` starts every child with both reset
    /// (`SpawnedProcessTests`).
    /// `silence` is the watcher's hang limit in seconds; `whileRunning` runs once it started. Returns its exit
    /// status and its log.
    func run(silence: Int = 2, whileRunning: @escaping @Sendable (ChildProcess) async -> Void = { _ in })
      async throws -> (status: Int32, log: String)
    {
      let script = TestScriptTests.repository.appendingPathComponent("scripts/swift-test-watched")
      let log = root.appendingPathComponent("watcher-log")
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      let handle = try FileHandle(forWritingTo: log)
      defer { try? handle.close() }
      let watcher = try ChildProcess.start(
        "/bin/bash", [script.path, output.path, root.appendingPathComponent("run").path, pids.path],
        environment: ["SWIFT_TEST_SILENCE": "\(silence)", "SWIFT_TEST_POLL": "1", "SWIFT_TEST_GRACE": "1"],
        output: .file(handle), errors: .file(handle), input: .none)
      let watching = Task { await whileRunning(watcher) }
      let status = await watcher.wait()
      await watching.value
      return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    func recordedPids() -> [Int32] {
      ((try? String(contentsOf: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    /// The recorded processes that still run (a zombie — ended, not yet reaped by init — does not count).
    func survivors() -> [Int32] {
      recordedPids().filter { pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.range(of: ") ", options: .backwards)
        else { return false }
        return !stat[close.upperBound...].hasPrefix("Z")
      }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
  }

  @Test func aHangIsDumpedAndEveryProcessTheRunStartedIsKilled() async throws {
    let sandbox = try Sandbox(hangs: true)
    defer { sandbox.remove() }
    let (status, text) = try await sandbox.run()
    #expect(status == 124, "\(text)")
    #expect(text.contains("HUNG — no output for 2 s (attempt 1); tests in flight: hangsForGood"), "\(text)")
    for attempt in 1...2 {
      let dump = (try? String(contentsOfFile: sandbox.output.path + ".hang-\(attempt).txt", encoding: .utf8)) ?? ""
      // Each of the four processes (the run, its child in its own session, and their two sleeps) is dumped.
      #expect(dump.components(separatedBy: "== pid ").count - 1 == 4, "attempt \(attempt): \(dump)")
      #expect(dump.contains("Thread 1 "), "attempt \(attempt): \(dump)")
      #expect(dump.contains("nanosleep"), "attempt \(attempt): \(dump)")
    }
    #expect(text.contains("each thread's innermost frames:"), "\(text)")
    #expect(sandbox.recordedPids().count == 8, "\(sandbox.recordedPids())")
    #expect(sandbox.survivors().isEmpty, "left running: \(sandbox.survivors())\n\(text)")
  }

  @Test func aTermSentToTheWatcherEndsEveryProcessTheRunStarted() async throws {
    let sandbox = try Sandbox(hangs: true)
    defer { sandbox.remove() }
    // A long silence: only the SIGTERM ends this run.
    let (status, _) = try await sandbox.run(silence: 600) { watcher in
      for _ in 0..<300 where sandbox.recordedPids().count < 4 { try? await Task.sleep(for: .milliseconds(100)) }
      watcher.process.terminate()
    }
    #expect(status == 143)
    #expect(sandbox.recordedPids().count == 4, "\(sandbox.recordedPids())")
    #expect(sandbox.survivors().isEmpty, "left running: \(sandbox.survivors())")
  }

  @Test func aRunThatEndsLeavingAChildBehindHasItNamedAndKilled() async throws {
    let sandbox = try Sandbox(hangs: false)
    defer { sandbox.remove() }
    let (status, text) = try await sandbox.run()
    #expect(status == 0, "\(text)")
    #expect(text.contains("left 3 process(es) behind, killed now:"), "\(text)")
    #expect(sandbox.survivors().isEmpty, "left running: \(sandbox.survivors())\n\(text)")
  }
}

import Foundation
import Synchronization
import TestServers
import Testing

/// The tests' process spawner (`ChildProcess` over `SpawnedProcess`): a child started while this process
/// ignores SIGTERM and blocks SIGINT (as a command test running in process does for its scan) still ends on
/// either; it inherits no descriptor of ours beyond its three standard ones; its exit status and the signal
/// that ended it read as `Process` reported them; text given as input arrives whole and ends in end of file.
@Suite(.timeLimit(.minutes(1))) struct SpawnedProcessTests {
  @Test func aChildStartedWhileThisProcessIgnoresSigtermStillEndsOnIt() async throws {
    let previous = signal(SIGTERM, SIG_IGN)
    var block = sigset_t()
    sigemptyset(&block)
    sigaddset(&block, SIGINT)
    var mask = sigset_t()
    pthread_sigmask(SIG_BLOCK, &block, &mask)
    let started = Result { try ChildProcess.start("/bin/sleep", ["30"], output: .discarded, errors: .discarded) }
    pthread_sigmask(SIG_SETMASK, &mask, nil)
    signal(SIGTERM, previous)
    let sleeper = try started.get()
    let sigint = try ChildProcess.start("/bin/sleep", ["30"], output: .discarded, errors: .discarded)
    #expect(sleeper.process.isRunning)
    sleeper.process.terminate()
    sigint.process.interrupt()
    #expect(await sleeper.wait() == SIGTERM)
    #expect(sleeper.process.terminationReason == .uncaughtSignal)
    #expect(await sigint.wait() == SIGINT)
    #expect(!sleeper.process.isRunning)
  }

  @Test func aChildInheritsOnlyItsStandardDescriptorsAndReportsItsExitStatus() async throws {
    // A descriptor of ours without close-on-exec, as Foundation's Pipe makes them.
    let held = Pipe()
    let run = try await ChildProcess.run("/bin/sh", ["-c", "ls /proc/self/fd; exit 3"], input: .none)
    #expect(run.status == 3)
    // The shell's 0, 1, 2, and the descriptor `ls` lists its directory through.
    let listed = run.output.split(separator: "\n").compactMap { Int($0) }.filter { $0 > 3 }
    #expect(listed.isEmpty, "inherited: \(listed) (ours: \(held.fileHandleForReading.fileDescriptor))")
  }

  @Test func textGivenAsInputArrivesWholeAndEnds() async throws {
    let text = String(repeating: "line of input\n", count: 2_000)
    let run = try await ChildProcess.run("/usr/bin/wc", ["-c"], input: .text(text))
    #expect(run.status == 0)
    #expect(run.output.trimmingCharacters(in: .whitespaces) == String(text.utf8.count))
  }
}

import Testing

@testable import BeaconProvisionCLI

/// The monitor's `command` action launcher (posix_spawn, reaped on a queue of its own): how a program ended,
/// its environment exactly as given, and a program that cannot be started.
@Suite(.timeLimit(.minutes(5))) struct EventProgramTests {
  static func run(_ argv: [String], environment: [String: String] = [:]) async throws -> EventProgram.Ending {
    try await withCheckedThrowingContinuation { continuation in
      do {
        try EventProgram.start(argv, environment: environment) { continuation.resume(returning: $0) }
      } catch {
        continuation.resume(throwing: error)
      }
    }
  }

  @Test func reportsTheExitStatusAndTheKillingSignal() async throws {
    #expect(try await Self.run(["/bin/sh", "-c", "exit 0"]) == .exited(0))
    #expect(try await Self.run(["/bin/sh", "-c", "exit 3"]) == .exited(3))
    #expect(try await Self.run(["/bin/sh", "-c", "kill -9 $$"]) == .signalled(9))
  }

  @Test func theEnvironmentIsExactlyWhatIsGivenAndStandardInputIsEmpty() async throws {
    // Exits 0 only when BEACON_X has the value, HOME is absent (nothing inherited) and stdin reads as empty.
    let script = #"[ "$BEACON_X" = "a b=c" ] && [ -z "${HOME+set}" ] && [ -z "$(cat)" ]"#
    #expect(try await Self.run(["/bin/sh", "-c", script], environment: ["BEACON_X": "a b=c"]) == .exited(0))
    #expect(try await Self.run(["/bin/sh", "-c", script], environment: ["BEACON_X": "other"]) == .exited(1))
  }

  @Test func aProgramThatCannotStartThrows() async throws {
    #expect(throws: EventProgram.SpawnError.self) {
      try EventProgram.start(["/nonexistent/program"], environment: [:]) { _ in }
    }
    #expect(throws: EventProgram.SpawnError.self) {
      try EventProgram.start(["relative-name"], environment: [:]) { _ in }
    }
  }
}

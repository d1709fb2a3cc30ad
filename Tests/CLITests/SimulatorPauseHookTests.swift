import BlueZ
import Fleet
import Foundation
import Simulator
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// The several-gateways tests' pause hook (`SimulatorPauseHook`): it stops the process once,
/// at the named step of the named device only, before the record reaches the journal; it is built on a
/// simulated adapter only; a malformed value is refused there, naming the variable.
@Suite(.timeLimit(.minutes(2))) struct SimulatorPauseHookTests {
  static let variable = SimulatorPauseHook.environmentVariable
  static let address = "DD:36:01:00:00:02"

  /// Records `steps` of `address`; returns the pause count after each record and what the journal holds.
  static func record(_ steps: [(String, String)], hook: String) async throws -> (pauses: [Int], stepsSeen: [String?]) {
    let inner = try Journal(path: nil)
    let run = try await inner.createRun(
      kind: "apply", source: "t", adapter: "sim", addresses: [address, "DD:36:01:00:00:03"])
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    let hooked = try #require(
      try SimulatorPauseHook(environment: [variable: hook], simulator: central))
    let count = Mutex(0)
    let journal = PausingJournal(inner, hook: hooked, pause: { count.withLock { $0 += 1 } })
    var pauses: [Int] = []
    var seen: [String?] = []
    for (address, step) in steps {
      try await journal.record(run: run, address: address, state: .working, step: step)
      pauses.append(count.withLock { $0 })
      seen.append(try await inner.device(run: run, address: address)?.step)
    }
    return (pauses, seen)
  }

  @Test func pausesOnceAtTheNamedStepOfTheNamedDeviceAndStillRecordsIt() async throws {
    let other = "DD:36:01:00:00:03"
    let (pauses, seen) = try await Self.record(
      [(other, "writing"), (Self.address, "reading"), (Self.address, "writing"), (Self.address, "writing")],
      hook: "before-write:dd:36:01:00:00:02")  // lower case: the address is normalised
    #expect(pauses == [0, 0, 1, 1])
    #expect(seen == ["writing", "reading", "writing", "writing"])
    let dfu = try await Self.record(
      [(Self.address, "writing"), (Self.address, "transferring")], hook: "before-transfer:\(Self.address)")
    #expect(dfu.pauses == [0, 1])
    // `:N`: the step's first record in the device's N-th visit (its record that counts an attempt): a reopened
    // row's takeover, after the failed visits. The first visit's records, and another device's, do not count.
    let inner = try Journal(path: nil)
    let run = try await inner.createRun(kind: "dfu", source: "t", adapter: "sim", addresses: [Self.address, other])
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    let hook = try #require(
      try SimulatorPauseHook(environment: [Self.variable: "before-transfer:\(Self.address):2"], simulator: central))
    let count = Mutex(0)
    let journal = PausingJournal(inner, hook: hook, pause: { count.withLock { $0 += 1 } })
    var visitPauses: [Int] = []
    let records: [(String, DeviceState, String?, Bool)] = [
      (Self.address, .working, "connecting", true), (Self.address, .working, "transferring", false),
      (Self.address, .pending, nil, false), (other, .working, "transferring", true),
      (Self.address, .working, "transferring", true), (Self.address, .working, "transferring", false),
    ]
    for (address, state, step, visit) in records {
      try await journal.record(run: run, address: address, state: state, step: step, countAttempt: visit)
      visitPauses.append(count.withLock { $0 })
    }
    #expect(visitPauses == [0, 0, 0, 0, 1, 1])
  }

  /// `after-batch:K` pauses once, after the K-th batch recorded its end ("finished"; "stopped" and
  /// "interrupted" are not batch ends), and the end still reaches the journal first.
  @Test func afterBatchPausesOnceAtTheKthEndOfABatch() async throws {
    let inner = try Journal(path: nil)
    let run = try await inner.createRun(kind: "dfu", source: "t", adapter: "sim", addresses: [Self.address])
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    let hook = try #require(try SimulatorPauseHook(environment: [Self.variable: "after-batch:2"], simulator: central))
    let count = Mutex(0)
    let journal = PausingJournal(inner, hook: hook, pause: { count.withLock { $0 += 1 } })
    var pauses: [Int] = []
    for status in ["finished", "interrupted", "finished", "finished"] {
      try await journal.finish(run: run, status: status)
      pauses.append(count.withLock { $0 })
    }
    #expect(pauses == [0, 0, 1, 1])
    #expect(try await inner.run(run)?.status == "finished")
  }

  @Test func aRealAdapterNeverGetsTheHookEvenWithTheVariableSet() throws {
    let journal = try Journal(path: nil)
    for value in ["before-write:\(Self.address)", "nonsense"] {
      let wrapped = try SimulatorPauseHook.wrap(
        journal, central: BlueZCentral(adapter: "hci0"), environment: [Self.variable: value])
      #expect(wrapped === journal)
    }
  }

  @Test func onTheSimulatorTheVariableWrapsTheJournalOrIsRefused() throws {
    let journal = try Journal(path: nil)
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    #expect(try SimulatorPauseHook.wrap(journal, central: central, environment: [:]) === journal)
    #expect(
      try SimulatorPauseHook.wrap(
        journal, central: central, environment: [Self.variable: "before-write:\(Self.address)"]) is PausingJournal)
    for inside in ["in-bootloader:\(Self.address)", "in-bootloader:\(Self.address):0"] {
      let wrapped = try SimulatorPauseHook.wrap(journal, central: central, environment: [Self.variable: inside])
      #expect(wrapped === journal, "the bootloader's stop is the simulator's, not the journal's")
    }
    for bad in [
      "before-write", "after-write:\(Self.address)", "before-write:not-an-address", "after-batch:0",
      "before-write:\(Self.address):0", "before-write:\(Self.address)x", "before-write:\(Self.address):two",
      ":", "in-bootloader:\(Self.address):1", "in-bootloader:\(Self.address)x", "in-bootloader:",
    ] {
      #expect {
        _ = try SimulatorPauseHook.wrap(journal, central: central, environment: [Self.variable: bad])
      } throws: { error in
        "\(error)".contains(Self.variable) && "\(error)".contains("before-write:ADDRESS[:N]")
      }
    }
  }
}

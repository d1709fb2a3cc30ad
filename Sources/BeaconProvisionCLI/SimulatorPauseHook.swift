import BeaconCore
import Fleet
import Foundation
import Simulator
import Synchronization

/// A test-only hook for the several-gateways fault tests (a gateway paused past its lease must not write again):
/// with `BEACON_PROVISION_TEST_PAUSE_AT=before-write:ADDRESS` (or `before-transfer:ADDRESS`) a campaign on a
/// simulated adapter stops its own process (`raise(SIGSTOP)`) just before it journals the `writing` (`dfu
/// update`: `transferring`) step of that device — before the fenced pre-write record (`LeaseFence`), at that
/// exact step, once; `before-…:ADDRESS:N` at the first such record in the device's N-th visit or later (a
/// reopened row's takeover, after the visits that failed: `ReconcileLeftInBootloaderFaultsTests`);
/// `before-connect:ADDRESS` stops it before the `connecting` record, which on a fenced
/// journal comes before the link opens (`CampaignJournal.fencesDevices`). A test stopping a gateway from
/// outside on a log line could land after that record, where the write that follows is the fence's
/// documented gap; this one cannot. The line
/// `test hook: stopped before …` goes to standard error first, so the test knows it has stopped.
/// `after-batch:K` stops it instead once the scheduler's K-th batch has recorded its end — in a staged
/// rollout (`dfu update --rollout`) that is between wave K-1 and wave K (the canary is batch 1): the killed-
/// between-waves test (`DFURolloutKillTests`) needs that exact point, which no log line gives it.
/// `in-registry:ADDRESS` stops it inside the shared registry's transaction that records a read of that
/// device, its rows locked (`SimulatorPauseHook+Registry`): a gateway frozen inside a transaction.
/// `in-bootloader:ADDRESS` stops it once that device's simulated bootloader has saved its first executed
/// firmware object, `in-bootloader:ADDRESS:0` once it has saved its init command (an image of one object has no
/// other point) (`SimulatorPauseHook+Bootloader`): a gateway gone mid-transfer.
///
/// It cannot act on a real adapter: `wrap` builds the hook only from a `SimulatedCentral` (the type
/// `CentralFactory` returns for `--adapter sim` / `sim:FILE` and for nothing else; a live adapter's central
/// is a `BlueZCentral`), so for any other central the journal is returned untouched and the variable is not
/// even read [I: a malformed value is refused only on the simulator, where it can matter].
struct SimulatorPauseHook: Sendable, Hashable {
  static let environmentVariable = "BEACON_PROVISION_TEST_PAUSE_AT"
  /// The forms of the variable's value and the step each stops before.
  static let points: [String: VisitStep] = [
    "before-write": .writing, "before-transfer": .transferring, "before-connect": .connecting,
  ]

  /// `before-…:ADDRESS`: the step and the device; nil for `after-batch:K`.
  let step: VisitStep?
  let address: String?
  /// `before-…:ADDRESS:N`: N (1 without it).
  var occurrence = 1
  /// `after-batch:K`: K.
  let afterBatches: Int?
  /// `in-registry:ADDRESS`: the stop is the registry's, not the journal's.
  var insideRegistry = false
  /// `in-bootloader:ADDRESS[:0]`: the stop is the simulated bootloader's, not the journal's, once it holds an
  /// executed firmware object — or, with `:0` (`bootloaderBytes` 0), its executed init command.
  var insideBootloader = false
  var bootloaderBytes: Int? = nil

  /// The hook the variable asks for; nil when it is unset or empty. The central is the proof of a
  /// simulator: there is no way to build a hook without one.
  init?(environment: [String: String], simulator _: SimulatedCentral) throws {
    guard let text = environment[Self.environmentVariable], !text.isEmpty else { return nil }
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    if parts.count == 2, parts[0] == "after-batch", let batches = Int(parts[1]), batches >= 1 {
      (step, address, afterBatches) = (nil, nil, batches)
      return
    }
    if parts.count == 2, parts[0] == "in-registry", let address = BluetoothAddress(parts[1])?.description {
      (step, self.address, afterBatches, insideRegistry) = (nil, address, nil, true)
      return
    }
    let target = parts.count == 2 ? Self.addressAndNumber(parts[1]) : nil
    if parts.first == "in-bootloader", let target, target.number == nil || target.number == 0 {
      (step, address, afterBatches, insideBootloader) = (nil, target.address, nil, true)
      bootloaderBytes = target.number
      return
    }
    // ADDRESS or ADDRESS:N, N ≥ 1.
    let occurrence = target.map { $0.number ?? 1 } ?? 0
    guard let step = Self.points[parts.first ?? ""], let address = target?.address, occurrence >= 1 else {
      throw CLIFailure(
        "\(Self.environmentVariable)=\(text): expected before-write:ADDRESS[:N], before-transfer:ADDRESS[:N], "
          + "before-connect:ADDRESS[:N], in-registry:ADDRESS, in-bootloader:ADDRESS[:0] or after-batch:K (a test hook)")
    }
    (self.step, self.address, self.afterBatches, self.occurrence) = (step, address, nil, occurrence)
  }

  /// `ADDRESS` or `ADDRESS:N` (an address holds colons of its own, so its 17 characters come first): the
  /// address, and N (nil without it, -1 when what follows is not `:` and a number); nil when the address is
  /// not one.
  private static func addressAndNumber(_ text: String) -> (address: String, number: Int?)? {
    guard let address = BluetoothAddress(String(text.prefix(17)))?.description else { return nil }
    let rest = text.dropFirst(17)
    if rest.isEmpty { return (address, nil) }
    guard rest.first == ":", let number = Int(rest.dropFirst()) else { return (address, -1) }
    return (address, number)
  }

  /// `journal`, or — on a simulated adapter with the variable set — `journal` behind a `PausingJournal`.
  static func wrap(
    _ journal: any CampaignJournal, central: any Central,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> any CampaignJournal {
    guard let simulator = central as? SimulatedCentral,
      let hook = try SimulatorPauseHook(environment: environment, simulator: simulator)
    else { return journal }
    if hook.insideBootloader {
      hook.pauseInBootloader(of: simulator)
      return journal
    }
    return PausingJournal(journal, hook: hook, pause: { raise(SIGSTOP) })
  }
}

/// Forwards everything to `inner`; the hook's record (its step's first for its device, in the N-th visit with
/// `:N`) first says so on standard error and calls `pause` (`raise(SIGSTOP)`: the process stops until SIGCONT).
final class PausingJournal: CampaignJournal {
  let inner: any CampaignJournal
  let hook: SimulatorPauseHook
  let pause: @Sendable () -> Void
  /// The hook's device: the visits recorded for it, and whether the hook has fired.
  private let seen = Mutex<(visits: Int, fired: Bool)>((0, false))
  private let batchesEnded = Mutex(0)

  init(_ inner: any CampaignJournal, hook: SimulatorPauseHook, pause: @escaping @Sendable () -> Void) {
    (self.inner, self.hook, self.pause) = (inner, hook, pause)
  }

  var location: String { inner.location }
  var fencesDevices: Bool { inner.fencesDevices }

  func record(_ update: JournalUpdate) async throws {
    if let step = hook.step, update.address == hook.address, due(step, update) {
      FileHandle.standardError.write(Data("test hook: stopped before \(step.rawValue) \(update.address)\n".utf8))
      pause()
    }
    try await inner.record(update)
  }

  /// Whether `update` is the hook's: the first record at `step` for its device in its N-th visit or later (a
  /// visit begins with the record that counts an attempt; N is the hook's occurrence, 1 by default), once.
  private func due(_ step: VisitStep, _ update: JournalUpdate) -> Bool {
    seen.withLock { seen in
      if update.countAttempt { seen.visits += 1 }
      guard update.step == step.rawValue, !seen.fired, max(seen.visits, 1) >= hook.occurrence else { return false }
      seen.fired = true
      return true
    }
  }

  func createRun(_ run: NewJournalRun) async throws -> String { try await inner.createRun(run) }
  /// Forwarded; with `after-batch:K`, the K-th end of a batch ("finished") then pauses, once.
  func finish(run: String, status: String) async throws {
    try await inner.finish(run: run, status: status)
    guard let batches = hook.afterBatches, status == "finished" else { return }
    if batchesEnded.withLock({ n in
      n += 1
      return n == batches
    }) {
      FileHandle.standardError.write(Data("test hook: stopped after batch \(batches)\n".utf8))
      pause()
    }
  }
  func run(_ id: String) async throws -> JournalRun? { try await inner.run(id) }
  func runs() async throws -> [JournalRun] { try await inner.runs() }
  func device(run: String, address: String) async throws -> JournalDevice? {
    try await inner.device(run: run, address: address)
  }
  func devices(run: String) async throws -> [JournalDevice] { try await inner.devices(run: run) }
}

import BeaconCore
import CampaignPipeline
import Firmware
import Fleet
import Foundation
import Simulator

/// `dfu update` as the command line asks for it: `DFUUpdateCommand`'s options turned into a `FirmwareCampaignPlan`
/// (the package read, or the catalogue's place and the firmware cache; the device facts; the password) and
/// the pipeline's `Settings`, the adapter and journal chosen, the scan rendered by `ScanRunner` and the events
/// by `CampaignConsole` — the same renderer as `apply`'s. The campaign itself is `CampaignPipeline`'s.
struct DFUInvocation {
  var command: DFUUpdateCommand
  /// Simulator pacing (tests run unpaced).
  var pace: SimulationPace = .realTime
  /// The radio; nil = the one `--adapter` names (tests pass a simulated central they keep looking at).
  var central: (any Central)? = nil
  /// Besides Ctrl-C, a condition on the events that stops the run the same way (tests).
  var stopWhen: (@Sendable (CampaignEvent) -> Bool)? = nil

  /// `dfu update` with this run's package (its real path) or catalogue firmware, adapter and state directory,
  /// and what the package or catalogue needs to be read the same way again — `--package-version`; `--catalog`,
  /// `--firmware-dir` and `--offline` (without them a resume found no catalogue unless the environment or the
  /// config file names one) — with `--resume RUN` it finishes the run. A catalogue folder and the cache are
  /// given as absolute paths (a resume may start elsewhere). A catalogue URL with credentials or secret query
  /// values is left out: the line is printed and passwords never are, so such a catalogue is named by
  /// `$BEACON_PROVISION_CATALOG` or the config file, which a resume reads again.
  var finishArguments: [String] {
    let c = command
    var arguments = ["dfu", "update"] + (c.package.map { ["--package", $0] } ?? [])
    arguments += c.version.map { ["--package-version", $0] } ?? []
    arguments += c.firmware.map { c.firmwareSource.resumeArguments(firmware: $0) } ?? []
    return arguments + c.adapterOptions.finishTail(stateDir: c.stateDir)
  }

  func run() async throws -> CampaignResult {
    let c = command
    let expectations = try c.deviceFacts.expectations(defaultHardwareVersion: 52)
    let downloads = DownloadProgress()
    let firmware: FirmwareCampaignPlan.Firmware
    if let path = c.package {
      firmware = .package(
        path: path,
        try await CampaignFailures.translated {
          try FirmwareCampaignPlan.SinglePackage(path: path, expectations: expectations, explicit: c.version)
        })
    } else if let text = c.firmware, let wanted = FirmwareWanted(text) {
      let location = try c.firmwareSource.location()
      firmware = .catalogue(
        firmware: text, wanted: wanted, location: location,
        cache: try c.firmwareSource.cache(location: location, expectations: expectations, progress: downloads),
        offline: c.firmwareSource.offline)
    } else {
      throw CLIFailure("give exactly one of --package FILE.zip and --firmware latest|VERSION")
    }
    let plan = FirmwareCampaignPlan(
      firmware: firmware, expectations: expectations, password: Secret(try c.password.resolve().text),
      addresses: c.addresses,
      name: c.name, models: c.model, hardware: c.hardware, minimumBattery: c.minimumBattery,
      transfer: .init(
        receiptInterval: c.prn, objectDelay: .milliseconds(c.objectDelay),
        reconnectDelay: SecondsOption.duration(c.reconnectDelay),
        timeout: SecondsOption.duration(c.timeout)))
    let console = CampaignConsole(
      progress: CampaignProgress(json: c.json, describe: DFUCampaignReport.describe), inFlight: "transfers",
      finish: finishArguments,
      downloads: downloads)
    let (central, pace) = (central, pace)
    let pipeline = CampaignPipeline(
      settings: .init(
        parallel: c.parallel, attempts: c.attempts, retryDelay: SecondsOption.duration(c.retryDelay),
        scanSeconds: c.scanSeconds,
        place: c.stateDirectory, resume: c.resume, shared: c.shared.runSettings, rollout: try c.rolloutPlan,
        maxFailures: try c.maxFailuresGiven),
      resources: {
        try await CampaignResources.open(
          stateDirectory: c.stateDirectory, central: central, adapter: c.adapterOptions.adapter,
          scanBackend: c.scanBackend.value,
          pace: pace, shared: c.shared)
      },
      scan: ScanRunner.campaignScan, emit: console.emit, stopWhen: stopWhen)
    let outcome = try await KBeaconOpener.$ambientGATTCache.withValue(
      c.gattCache.store(stateDirectory: c.stateDirectory)
    ) {
      try await CampaignFailures.translated { try await pipeline.run(plan) }
    }
    return CampaignResult(outcome: outcome, finish: finishArguments)
  }
}

import BeaconCore
import FirmwareIO
import Fleet
import Profiles

/// What a campaign pipeline reports while it runs, in order, for the command line to render (progress
/// lines on standard error, log records): values, never text, so `apply`, `plan`, text commands, `dfu
/// update` and `audit --connect` report through one observer and cannot drift apart again (`dfu update -v`
/// once failed with "Unknown option '-v'" while `apply -v` logged every step).
public enum PipelineEvent: Sendable {
  /// A `--package` campaign's package, checked before any radio work: its image kinds and the version it installs.
  case package(path: String, images: [String], version: FirmwareVersion)
  /// A catalogue campaign's firmware and catalogue; `offlineCache` is the cache folder with `--offline`.
  case catalogue(firmware: String, location: String, offlineCache: String?)
  /// The scan before the campaign starts.
  case scanning(adapter: String, seconds: Double)
  /// `--resume RUN` on this gateway: its unfinished devices, and how many of them the scan heard.
  case resuming(run: String, unfinished: Int, inRange: Int)
  /// The run several gateways share, joined (or started) as this gateway.
  case shared(run: String, gateway: String, location: String)
  /// A new resumable run has its id, before any device is touched (after a kill -9 no summary comes).
  case started(run: String)
  /// The devices selected, and those named but not heard.
  case selected(count: Int, notSeen: Int)
  /// A catalogue campaign's survey: devices read, of those eligible, grouped "model hver" → count.
  case surveyed(read: Int, of: Int, groups: [String: Int])
  /// On a shared run, the targets the survey leaves out: another gateway heard them clearly better lately
  /// (address → that gateway, `GatewayCoordinator.leftToNearer`).
  case surveyLeft([String: String])
  /// A catalogue campaign's devices left mid-transfer that did not answer its survey (in their bootloaders,
  /// perhaps): those whose identity the fleet registry gave, and those it knows nothing of.
  case recalledLeftMidTransfer(recalled: [String], unknown: [String])
  /// A firmware campaign's named device was not heard, but its DFU bootloader was (`name` at `bootloader`): an
  /// earlier transfer broke off, or one is under way elsewhere; `run` is the run of this journal that left it,
  /// when one did, and `resumable` whether this command with `--resume run` finishes it.
  case waitingInBootloader(address: String, bootloader: String, name: String, run: String?, resumable: Bool)
  /// On a named shared run, a named device not heard whose bootloader was (`name` at `bootloader`), its row in
  /// `run` left mid-transfer by a visit cut short: this gateway takes it over, once the lease allows.
  case takingOverFromBootloader(address: String, bootloader: String, name: String, run: String)
  /// A model's catalogue, downloaded, not modified since the cached copy, or from the cache (offline).
  case catalogueRead(url: String, origin: CatalogueSnapshot.Origin)
  /// A package download begins (the download's own progress is the cache's).
  case fetching(file: String)
  /// A package in hand and verified: downloaded now, or from the cache (fetched from `source`).
  case packageReady(
    file: String, version: String, model: String, hardware: String, downloaded: Bool, source: String, sha256: String)
  /// The first interrupt: devices in flight finish, the rest stay pending.
  case stopping
  /// A staged rollout's wave begins (`RolloutWaves`): its name ("canary", "wave 2 (25%)"), its devices, and
  /// how many of all the selected devices have been reached once it ends.
  case waveStarting(name: String, devices: Int, reached: Int, of: Int)
  /// A wave ended with `failures` of its `devices` failed; `stops`: over `maxFailures` percent, the rollout stops.
  case waveFinished(name: String, devices: Int, failures: Int, maxFailures: Int, stops: Bool)
  /// The scheduler's own event, with the number of devices in this batch.
  case campaign(CampaignEvent, total: Int)
}

extension PipelineEvent {
  /// `surveyLeft`'s addresses as a line shows them: "DD:… (gw-2), …", by address.
  public static func text(left: [String: String]) -> String {
    left.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
  }

  /// `takingOverFromBootloader` in words.
  public static func text(takingOver address: String, bootloader: String, name: String, run: String) -> String {
    "\(address)  not seen, but its DFU bootloader is advertising (\(name) at \(bootloader)), left mid-transfer "
      + "in run \(run): taking it over once no other gateway holds it"
  }

  /// `recalledLeftMidTransfer` in words.
  public static func text(recalled: [String], unknown: [String]) -> String {
    var parts = ["left mid-transfer and not read (in their bootloaders, perhaps)"]
    if !recalled.isEmpty {
      parts.append("model and hardware from the fleet registry: " + recalled.joined(separator: ", "))
    }
    if !unknown.isEmpty {
      parts.append(
        "the fleet registry has no model and hardware version for them (or cannot be read), so no package can be "
          + "chosen: " + unknown.sorted().joined(separator: ", "))
    }
    return parts.joined(separator: "; ")
  }
}

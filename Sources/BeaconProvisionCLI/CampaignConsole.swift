import BeaconCore
import CampaignPipeline
import Fleet
import Profiles

/// How every campaign command (`plan`, `apply`, `dfu update`, `audit --connect`) renders its pipeline's
/// events (`PipelineEvent`): the scheduler's events as log records (`CampaignLog`, `-v`) and progress
/// (`CampaignProgress`), everything else as one line on standard error. One renderer for all of them, so
/// `dfu update -v` logs as `apply -v` does.
struct CampaignConsole: Sendable {
  let progress: CampaignProgress
  /// What is in flight, for the stop line: "links" (apply), "transfers" (dfu update).
  let inFlight: String
  /// The command line that finishes a run with `--resume` (printed when a run starts).
  let finish: [String]
  /// A catalogue campaign's download progress (the firmware cache draws it).
  let downloads: DownloadProgress?

  init(progress: CampaignProgress, inFlight: String = "links", finish: [String], downloads: DownloadProgress? = nil) {
    (self.progress, self.inFlight, self.finish, self.downloads) = (progress, inFlight, finish, downloads)
  }

  func emit(_ event: PipelineEvent) {
    if case .campaign(let event, let total) = event {
      CampaignLog.record(event)
      progress.show(event, total: total)
    } else if case .fetching(let file) = event {
      downloads?.start(file)
    } else if let line = Self.line(event, inFlight: inFlight, finish: finish) {
      progress.note(line)
    }
  }

  /// The line an event other than the scheduler's prints.
  static func line(_ event: PipelineEvent, inFlight: String, finish: [String]) -> String? {
    switch event {
    case .package(let path, let images, let version):
      return "\(path): \(images.joined(separator: " + ")) → version \(version)"
    case .catalogue(let firmware, let location, let offlineCache):
      return "firmware \(firmware) from the catalogue \(location)"
        + (offlineCache.map { " (offline: the cache \($0) only)" } ?? "")
    case .scanning(let adapter, let seconds):
      return "scanning \(adapter) for \(FieldSpec.Kind.plain(seconds)) s …"
    case .resuming(let run, let unfinished, let inRange):
      guard unfinished > 0 else { return "resuming \(run): every device of the run has finished; nothing left to do" }
      return "resuming \(run): \(unfinished) devices not finished, \(inRange) in range"
    case .shared(let run, let gateway, let location):
      return "run \(run) shared as gateway \(gateway) in \(location)"
    case .started(let run):
      return ResumeRun.startLine(run: run, finish: finish)
    case .selected(let count, let notSeen):
      return CampaignReport.selected(count, notSeen: notSeen)
    case .surveyed(let read, let of, let groups):
      guard !groups.isEmpty else { return "read \(read) of \(of) devices" }
      return "read \(read) of \(of) devices: " + groups.map { "\($1)× \($0)" }.sorted().joined(separator: ", ")
    case .surveyLeft(let left):
      return "not read, left to nearer gateways: " + PipelineEvent.text(left: left)
    case .recalledLeftMidTransfer(let recalled, let unknown):
      return PipelineEvent.text(recalled: recalled, unknown: unknown)
    case .waitingInBootloader(let address, let bootloader, let name, let run, let resumable):
      let found =
        "\(address)  not seen, but its DFU bootloader is advertising (\(name) at \(bootloader)): an update "
        + "was cut off or is under way elsewhere, and this run will not touch it; "
      guard let run else {
        return found + "no run of this journal left it mid-transfer (another state directory's?): resume that run there"
      }
      guard resumable else {
        return found + "run \(run) left it: resume that run with the arguments it was started with"
      }
      return found + "finish it with  \(ResumeRun.command(finish, run: run))"
    case .takingOverFromBootloader(let address, let bootloader, let name, let run):
      return PipelineEvent.text(takingOver: address, bootloader: bootloader, name: name, run: run)
    case .catalogueRead(let url, let origin):
      let how =
        switch origin {
        case .downloaded: "downloaded"
        case .notModified: "not modified"
        case .cache: "from the cache (offline)"
        }
      return "catalogue \(url): \(how)"
    case .packageReady(let file, let version, let model, let hardware, let downloaded, let source, let sha256):
      return "\(file) \(version) for \(model) \(hardware): "
        + "\(downloaded ? "downloaded and verified" : "verified, from the cache (fetched from \(source))"), sha256 \(sha256)"
    case .stopping:
      return "stopping: \(inFlight) in flight finish their device; the rest stay pending (Ctrl-C again to quit now)"
    case .waveStarting(let name, let devices, let reached, let of):
      return "rollout: \(name) starts: \(devices) devices (\(reached) of \(of) reached once it ends)"
    case .waveFinished(let name, let devices, let failures, let maxFailures, let stops):
      return "rollout: \(name) finished: \(failures) of \(devices) failed, "
        + (stops
          ? "over --max-failures \(maxFailures)%: the rollout stops" : "at or under --max-failures \(maxFailures)%")
    case .fetching, .campaign:
      return nil
    }
  }
}

import Fleet
import Logging

/// Log records of a `plan`/`apply` campaign's steps (`CampaignEvent`): each visit step, the links in use and
/// transfer progress at debug, retries, waits and each device's outcome at info, the adapter's link limit at notice. Only addresses, steps, states, counts
/// and failure reasons are logged — never a changed value, since a password rotation is a change.
enum CampaignLog {
  static let logger = CLILog.logger("campaign")

  static func record(_ event: CampaignEvent) {
    switch event {
    case .step(let address, let step, let attempt):
      logger.debug("\(step.rawValue)", metadata: ["device": "\(address)", "attempt": "\(attempt)"])
    case .retrying(let address, let attempt, let after, let reason):
      logger.info(
        "retrying",
        metadata: ["device": "\(address)", "attempt": "\(attempt)", "after": "\(after)", "reason": "\(reason)"])
    case .waiting(let address, let reason):
      logger.info("waiting", metadata: ["device": "\(address)", "reason": "\(reason)"])
    case .finished(let address, let outcome):
      var metadata: Logger.Metadata = ["device": "\(address)", "state": "\(outcome.state)"]
      switch outcome {
      case .planned(let changes), .updated(let changes): metadata["changes"] = "\(changes.count)"
      case .failed(let reason, _), .skipped(let reason): metadata["reason"] = "\(reason)"
      case .compliant, .pending: break
      }
      logger.info("finished", metadata: metadata)
    case .linkLimit(let links, let asked):
      logger.notice("link limit", metadata: ["links": "\(links)", "asked": "\(asked)"])
    case .linkLimitRaised(let links, let asked):
      logger.notice("link limit raised", metadata: ["links": "\(links)", "asked": "\(asked)"])
    case .linksInUse(let inUse, let limit):
      logger.debug("links", metadata: ["in-use": "\(inUse)", "limit": "\(limit)"])
    case .progress(let address, let done, let total, _):
      logger.trace("transfer", metadata: ["device": "\(address)", "bytes": "\(done)/\(total)"])
    }
  }
}

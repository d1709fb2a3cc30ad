import ArgumentParser
import BeaconCore
import CampaignPipeline
import Firmware
import Fleet
import Foundation
import Metrics

/// `reconcile --webhook`: each event also goes through the monitor's spool to every URL.
extension ReconcileCommand {
  /// `--webhook`: the monitor's spool (in this state directory's journal) and delivery workers; nil without.
  func webhooks() async throws -> WebhookDispatch? {
    guard !webhook.isEmpty else { return nil }
    let state = StateDirectory.resolve(stateDir)
    let journal: Journal
    do { journal = try await BlockingIO.run { try Journal(path: CampaignResources.journalPath(state)) } } catch {
      throw CLIFailure("cannot open the journal in \(state) for the webhook spool: \(error)")
    }
    let headers = try await BlockingIO.run {
      try webhookHeaderFile.map { try WebhookHeaderFile.load($0) } ?? WebhookHeaders()
    }
    let dispatch = WebhookDispatch(
      spool: WebhookSpool(journal: journal),
      poster: CurlWebhookPoster(
        caFile: firmwareSource.network.tls.caFile,
        insecureSkipTLSVerify: firmwareSource.network.tls.insecureSkipTLSVerify, extraHeaders: headers),
      warn: { FileHandleOutput.standardError("reconcile: \($0)") })
    await dispatch.start(urls: webhook)
    return dispatch
  }

  /// Lets the webhooks deliver what is spooled for up to 5 s, then says what waits for the next start.
  func drain(_ dispatch: WebhookDispatch?) async {
    guard let dispatch else { return }
    let left = await dispatch.finish(grace: .seconds(5))
    if left > 0 {
      FileHandleOutput.standardError(
        "reconcile: \(left) webhook event\(left == 1 ? "" : "s") stay spooled for the next start")
    }
  }
}

import Dispatch
import Fleet
import Glibc

/// Runs a fleet campaign under Ctrl-C. The first SIGINT asks the campaign to stop gracefully (links in flight
/// finish their device, the rest stay pending); the second ends the command at once with status 130. That
/// end is a `CampaignQuit` thrown back to the command (which ends with status 130), so the process exits on
/// the command's own path — never by calling `exit` on the signal source's GCD thread, where atexit handlers
/// and static destructors would run while the campaign's threads still use them.
///
/// A campaign that stopped because its journal could not be written ends the command with that error.
public enum InterruptibleCampaign {
  enum Ending: Sendable {
    case finished(CampaignSummary)
    case quit
  }

  /// `interrupts` replaces SIGINT (tests); `nil` listens for SIGINT while the campaign runs.
  static func run(
    interrupts: AsyncStream<Void>?, start: @escaping @Sendable () async -> CampaignSummary,
    stop: @escaping @Sendable () async -> Void
  ) async throws -> CampaignSummary {
    let signals = interrupts == nil ? InterruptSignals() : nil
    defer { signals?.cancel() }
    let stream = interrupts ?? signals?.stream ?? AsyncStream { $0.finish() }
    let (endings, end) = AsyncStream.makeStream(of: Ending.self)
    Task { end.yield(.finished(await start())) }
    let listener = Task {
      var count = 0
      for await _ in stream {
        count += 1
        if count == 1 {
          await stop()
        } else {
          end.yield(.quit)
          return
        }
      }
    }
    defer { listener.cancel() }
    for await ending in endings {
      switch ending {
      case .quit:
        throw CampaignQuit()
      case .finished(let summary):
        if let failure = summary.journalFailure {
          throw CampaignFailure(
            "run \(summary.run) stopped: \(failure). Devices not finished are pending; once the journal "
              + "can be written again, finish them with --resume \(summary.run)")
        }
        return summary
      }
    }
    throw CancellationError()
  }
}

/// SIGINT as a stream: the signal source's handler only yields (it runs on a GCD queue).
final class InterruptSignals {
  let source: any DispatchSourceSignal
  let stream: AsyncStream<Void>
  let continuation: AsyncStream<Void>.Continuation

  init() {
    (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    signal(SIGINT, SIG_IGN)
    source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    source.setEventHandler { [continuation] in continuation.yield() }
    source.resume()
  }

  func cancel() {
    source.cancel()
    signal(SIGINT, SIG_DFL)
    continuation.finish()
  }
}

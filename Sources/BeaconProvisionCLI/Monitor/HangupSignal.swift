import Dispatch
import Glibc

/// SIGHUP as a stream, for a long-running command that reloads its files on it (systemd's `ExecReload=kill
/// -HUP $MAINPID`): the signal's default action (terminate) is replaced for as long as the stream is
/// listened to, and put back by `stop()`. Owned by the command's task (not shared, so not `Sendable`).
final class HangupSignal {
  let signals: AsyncStream<Void>
  private let source: any DispatchSourceSignal

  init() {
    let (signals, feed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    self.signals = signals
    signal(SIGHUP, SIG_IGN)
    source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
    source.setEventHandler { feed.yield() }
    source.setCancelHandler { feed.finish() }
    source.resume()
  }

  func stop() {
    source.cancel()
    signal(SIGHUP, SIG_DFL)
  }
}

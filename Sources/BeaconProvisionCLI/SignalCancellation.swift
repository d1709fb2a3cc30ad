import Dispatch
import Glibc

/// Runs a long radio operation so that SIGINT/SIGTERM cancel it instead of killing the process: the
/// operation's own cleanup then runs (disable the raw-HCI scan, Stop Discovery, disable advertising), which
/// a killed process would leave switched on in the controller or the kernel.
enum SignalCancellation {
  static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let task = Task { try await body() }
    let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { task.cancel() }
      source.resume()
      return source
    }
    defer {
      for source in sources { source.cancel() }
      signal(SIGINT, SIG_DFL)
      signal(SIGTERM, SIG_DFL)
    }
    return try await task.value
  }
}

import BeaconCore
import Glibc

/// LE scanning over a raw HCI socket, for adapters the tool owns (no bluetoothd discovery on them):
/// LE Set Scan Parameters/Enable and LE Advertising Report events, or their extended forms when the
/// controller supports them — the kernel then drives it with extended commands and refuses the legacy
/// ones (docs/protocols/linux-ble.md §4 item 2). Active or passive as asked; duplicates are not filtered.
public struct HCIScanner: Sendable {
  public var adapter: Adapter

  public init(adapter: Adapter) { self.adapter = adapter }

  /// The commands that configure and start a scan, given the controller's supported commands.
  static func startCommands(_ parameters: ScanParameters, extended: Bool) -> [HCICommand] {
    extended
      ? [.leSetExtendedScanParameters(parameters), .leSetExtendedScanEnable(true)]
      : [.leSetScanParameters(parameters), .leSetScanEnable(true)]
  }

  /// The command that stops a scan. Command Disallowed on it means "was not scanning" (some controllers,
  /// docs/protocols/linux-ble.md §4 item 2) and is ignored.
  static func stopCommand(extended: Bool) -> HCICommand {
    extended ? .leSetExtendedScanEnable(false) : .leSetScanEnable(false)
  }

  /// Scans until the calling task is cancelled, passing each report to `yield`; then disables the scan
  /// (even though cancelled) and closes the socket before returning.
  public func run(_ parameters: ScanParameters, yield: @Sendable (AdvertisingReport) -> Void) async throws {
    let socket = try HCISocket(adapter: adapter)
    defer { socket.close() }
    try await run(parameters, on: socket, yield: yield)
  }

  /// `run` on an open socket (tests drive a fake controller through it).
  func run(_ parameters: ScanParameters, on socket: HCISocket, yield: @Sendable (AdvertisingReport) -> Void)
    async throws
  {
    let events = socket.events()
    let supported = try LocalSupportedCommands(returnParameters: try await socket.run(.readLocalSupportedCommands))
    let extended = supported.supportsExtendedScan
    // A scan left enabled (by an earlier run) would make the parameters command fail.
    try await socket.run(Self.stopCommand(extended: extended), ignoring: [.commandDisallowed])
    for command in Self.startCommands(parameters, extended: extended) { try await socket.run(command) }
    for await event in events {
      if Task.isCancelled { break }
      let now = ContinuousClock.now
      switch event {
      case .leAdvertisingReports(let reports):
        for report in reports { if let r = report.advertisingReport(at: now) { yield(r) } }
      case .leExtendedAdvertisingReports(let reports):
        for report in reports { if let r = report.advertisingReport(at: now) { yield(r) } }
      default: break
      }
    }
    // Cleanup must run although this task is cancelled: an uncancelled task sends the disable.
    await Task { _ = try? await socket.run(Self.stopCommand(extended: extended), ignoring: [.commandDisallowed]) }.value
    guard Task.isCancelled else { throw BlueZError(errno: ENODEV, call: "read(HCI) ended", adapter: adapter.name) }
  }

  /// `run` as a stream: reports until the consumer stops iterating.
  public func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
    streaming { yield in try await run(parameters, yield: yield) }
  }
}

/// Runs a scanner's `run` in a task feeding a stream; the consumer stopping cancels the task.
func streaming(
  _ run: @escaping @Sendable (@Sendable (AdvertisingReport) -> Void) async throws -> Void
) -> AsyncThrowingStream<AdvertisingReport, any Error> {
  AsyncThrowingStream(bufferingPolicy: .bufferingNewest(4096)) { continuation in
    let task = Task {
      do {
        try await run { continuation.yield($0) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
  }
}

import BeaconCore
import Glibc

/// LE discovery through the kernel's management channel (`doc/mgmt-api.txt`, Start Discovery with LE
/// public|random, Device Found events) — works while bluetoothd runs, because the kernel arbitrates.
///
/// Choices [I]: the adapter is powered and LE enabled if it is not (Set Powered / Set Low Energy); the
/// kernel ends each LE discovery after about 10 s (Discovering false), so discovery is restarted while the
/// consumer still listens; when Start Discovery answers Busy the scanner stops that discovery and starts
/// its own (`startDiscovery`: bluetoothd restarts its discovery for its clients by itself). Kernel
/// discovery is always active, so `ScanParameters.active`/interval/window are not applied on this backend.
public struct MgmtScanner: Sendable {
  public var adapter: Adapter
  /// Pause between attempts when the kernel refuses to restart discovery (e.g. while it creates an LE
  /// connection, which interrupts discovery); tests pass a tiny one.
  var restartRetryDelay: Duration
  /// Attempts before a refused restart ends the scan with the kernel's error.
  static let restartAttempts = 20

  public init(adapter: Adapter) { self.init(adapter: adapter, restartRetryDelay: .milliseconds(500)) }

  init(adapter: Adapter, restartRetryDelay: Duration) {
    self.adapter = adapter
    self.restartRetryDelay = restartRetryDelay
  }

  /// Powers the adapter and enables LE when needed; returns the controller info.
  static func prepare(_ socket: MgmtSocket, index: UInt16) async throws -> MgmtControllerInfo {
    var info = try MgmtControllerInfo(
      returnParameters: try await socket.run(.readControllerInfo(index: index)).returnParameters)
    if !info.currentSettings.contains(.lowEnergy) {
      info.currentSettings = try MgmtSettings(
        returnParameters: try await socket.run(.setLowEnergy(true, index: index)).returnParameters)
    }
    if !info.currentSettings.contains(.powered) {
      info.currentSettings = try MgmtSettings(
        returnParameters: try await socket.run(.setPowered(true, index: index), timeout: .seconds(10)).returnParameters)
    }
    return info
  }

  /// Starts LE discovery; true when this scanner started it. On Busy it takes over: Stop Discovery, then
  /// Start again — a discovery whose owner vanished (a killed process) or whose controller scan was
  /// disabled underneath it by a raw-HCI scanner otherwise stays "active" in the kernel forever and every
  /// Start answers Busy. If another client (bluetoothd) restarts first, the second Start answers Busy too
  /// and the scanner listens to that discovery's Device Found events (false).
  static func startDiscovery(_ socket: MgmtSocket, index: UInt16) async throws -> Bool {
    if try await socket.run(.startDiscovery(index: index), accepting: [.busy]).status == .success { return true }
    try await socket.run(.stopDiscovery(index: index), accepting: [.rejected, .invalidParameters, .busy, .failed])
    return try await socket.run(.startDiscovery(index: index), accepting: [.busy]).status == .success
  }

  /// Starts discovery again after the kernel ended a round; true when this scanner started it. A refusal
  /// (the kernel creating a connection, a transient failure) is retried `restartAttempts` times.
  func restart(_ socket: MgmtSocket, index: UInt16) async throws -> Bool {
    var attempt = 1
    while true {
      do {
        return try await socket.run(.startDiscovery(index: index), accepting: [.busy]).status == .success
      } catch is ControllerCommandError where attempt < Self.restartAttempts {
        attempt += 1
        try await Task.sleep(for: restartRetryDelay)
      }
    }
  }

  /// Discovers until the calling task is cancelled, passing each report to `yield`; then stops the
  /// discovery it started (even though cancelled) and closes the socket before returning.
  public func run(_ parameters: ScanParameters, yield: @Sendable (AdvertisingReport) -> Void) async throws {
    let socket = try MgmtSocket()
    defer { socket.close() }
    try await run(parameters, on: socket, yield: yield)
  }

  /// `run` on an open socket (tests drive a fake kernel through it).
  func run(_ parameters: ScanParameters, on socket: MgmtSocket, yield: @Sendable (AdvertisingReport) -> Void)
    async throws
  {
    let index = adapter.index
    let events = socket.events()
    _ = try await Self.prepare(socket, index: index)
    var started = try await Self.startDiscovery(socket, index: index)
    for await event in events where event.index == index {
      if Task.isCancelled { break }
      switch event.payload {
      case .deviceFound(let found):
        if let report = found.advertisingReport(at: .now) { yield(report) }
      case .discovering(_, active: false):
        do {
          started = try await restart(socket, index: index) || started
        } catch  where Task.isCancelled {
          break  // the consumer stopped while the restart was in flight
        }
      case .indexRemoved:
        throw BlueZError(errno: ENODEV, call: "mgmt Index Removed", adapter: adapter.name)
      default: break
      }
    }
    if started {
      await Task {
        _ = try? await socket.run(.stopDiscovery(index: index), accepting: [.rejected, .invalidParameters])
      }.value
    }
    guard Task.isCancelled else { throw BlueZError(errno: ENODEV, call: "read(mgmt) ended", adapter: adapter.name) }
  }

  /// `run` as a stream: reports until the consumer stops iterating.
  public func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
    streaming { yield in try await run(parameters, yield: yield) }
  }
}

import BeaconCore
import Glibc
import Synchronization

/// The live `Central` on one BlueZ adapter (`--adapter hci0`): LE scanning through the kernel's
/// management channel or a raw HCI socket (`ScanBackend`), and LE links through L2CAP CID 4 sockets.
///
/// Before an LE connect it stops this central's own raw-HCI scans (docs/protocols/vm-e2e.md pitfall 3: the kernel
/// scans passively to create the connection); their streams finish normally. mgmt scans keep running: the
/// kernel pauses its own discovery for the connect and `MgmtScanner` restarts it. Connects are serialized
/// per adapter (`ConnectLocks`).
public final class BlueZCentral: Central {
  public let name: String
  public let scanBackend: ScanBackend
  private let runningScans = Mutex<[Int: Task<Void, Never>]>([:])
  /// The ids of running scans that use raw HCI (set by the scan task itself, so independent of when the
  /// task is registered in `runningScans`).
  private let rawHCIScans = Mutex<Set<Int>>([])
  private let nextScanID = Atomic<Int>(0)

  /// `adapter` is the kernel's name (`hci0`); nothing is opened until a scan or connect.
  public init(adapter: String, scanBackend: ScanBackend = .auto) {
    name = adapter
    self.scanBackend = scanBackend
  }

  /// Whether the management channel answers Read Controller Information for `adapter`: nil when usable,
  /// else the error (no kernel support, unknown index…).
  static func probeManagement(_ adapter: Adapter) async -> (any Error)? {
    do {
      let socket = try MgmtSocket()
      defer { socket.close() }
      try await socket.run(.readControllerInfo(index: adapter.index), timeout: .seconds(2))
      return nil
    } catch {
      return error
    }
  }

  /// The backend this central's scans use on `adapter`.
  public func resolvedBackend(on adapter: Adapter) async throws -> ScanBackend {
    let probe = scanBackend == .hci ? nil : await Self.probeManagement(adapter)
    return try scanBackend.resolve(mgmtProbe: probe)
  }

  public func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
    let (stream, continuation) = AsyncThrowingStream<AdvertisingReport, any Error>.makeStream(
      bufferingPolicy: .bufferingNewest(4096))
    let id = nextScanID.add(1, ordering: .relaxed).newValue
    let task = Task { [self] in
      do {
        let adapter = try Adapter.named(name)
        switch try await resolvedBackend(on: adapter) {
        case .mgmt: try await MgmtScanner(adapter: adapter).run(parameters) { continuation.yield($0) }
        default:
          _ = rawHCIScans.withLock { $0.insert(id) }
          try await HCIScanner(adapter: adapter).run(parameters) { continuation.yield($0) }
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
      _ = runningScans.withLock { $0.removeValue(forKey: id) }
      _ = rawHCIScans.withLock { $0.remove(id) }
    }
    runningScans.withLock { $0[id] = task }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// Stops every scan this central runs and waits until each has disabled scanning on the controller or
  /// stopped its discovery (`Central.stopScans`).
  public func stopScans() async { await stopScans(rawHCIOnly: false) }

  /// Stops the scans this central runs (all, or only raw-HCI ones) and waits until each has disabled
  /// scanning on the controller or stopped its discovery.
  public func stopScans(rawHCIOnly: Bool) async {
    let raw = rawHCIScans.withLock { $0 }
    let tasks = runningScans.withLock { scans -> [Task<Void, Never>] in
      let chosen = scans.filter { !rawHCIOnly || raw.contains($0.key) }
      for id in chosen.keys { scans.removeValue(forKey: id) }
      return Array(chosen.values)
    }
    for task in tasks { task.cancel() }
    for task in tasks { await task.value }
  }

  /// Opens an L2CAP LE link on CID 4 to `address` and returns the connected socket.
  public func openL2CAP(
    to address: BluetoothAddress, type: AddressType, security: L2CAPSecurity = .low, timeout: Duration
  ) async throws -> L2CAPConnection {
    let adapter = try Adapter.named(name)
    await stopScans(rawHCIOnly: true)
    return try await L2CAPConnector.connect(
      adapter: adapter, to: address, type: type, security: security, timeout: timeout)
  }

  /// Opens an L2CAP LE link on CID 4 (`openL2CAP`, security low) and wraps it in the fd-based
  /// `FileDescriptorBearer`, which then owns the descriptor, inside a `CentralLinkBearer`, whose `close()`
  /// ends the LE link too. The descriptor is switched back to blocking mode first: the bearer's send queue
  /// relies on `send(2)` blocking for back-pressure (its reads use MSG_DONTWAIT after poll).
  public func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer
  {
    let connection = try await openL2CAP(to: address, type: type, timeout: timeout)
    guard let fd = connection.takeDescriptor() else { throw LinkError(.closed, peer: address) }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    do {
      return CentralLinkBearer(
        socket: try FileDescriptorBearer(fileDescriptor: fd, peer: address), connection: connection)
    } catch {
      Glibc.close(fd)
      throw error
    }
  }
}

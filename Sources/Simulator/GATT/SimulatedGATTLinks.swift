import BeaconCore
import BlueZ

/// The GATT side of one simulated adapter: each device's `GATTServer` (made on first connect and kept, so
/// what a client writes survives a reconnect, as on a real device), the adapter's cap on concurrent links,
/// the link model, and per-device faults. `SimulatedCentral.connect` opens links through this.
public actor SimulatedGATTLinks {
  /// Makes a device's server the first time it is connected to.
  public typealias ServerFactory = @Sendable (_ address: BluetoothAddress) -> GATTServer

  public nonisolated let model: LinkModel
  public nonisolated let capacity: LinkCapacity
  private var servers: [BluetoothAddress: GATTServer] = [:]
  private var faults: [BluetoothAddress: LinkFaults] = [:]
  private var links: [BluetoothAddress: [SimulatedLink]] = [:]

  /// - Parameters:
  ///   - maxLinks: concurrent links the simulated controller allows (docs/protocols/linux-ble.md §4 item 6: real ones
  ///     manage 3–7) [default 5, a choice].
  public init(model: LinkModel = LinkModel(), maxLinks: Int = 5) {
    self.model = model
    self.capacity = LinkCapacity(limit: maxLinks)
  }

  /// The device's server, made with `make` when it has none yet.
  public func server(for address: BluetoothAddress, make: ServerFactory) -> GATTServer {
    if let known = servers[address] { return known }
    let made = make(address)
    servers[address] = made
    return made
  }

  /// Installs a server for a device (a device kind with real behaviour), replacing any made before.
  public func install(_ server: GATTServer, for address: BluetoothAddress) { servers[address] = server }

  /// Faults for the next links to `address` (nil clears them).
  public func setFaults(_ value: LinkFaults?, for address: BluetoothAddress) { faults[address] = value }

  /// Opens a link to the device's server and returns the client's bearer.
  public func open(to address: BluetoothAddress, make: ServerFactory) async throws -> FileDescriptorBearer {
    let target = server(for: address, make: make)
    let (bearer, link) = try await SimulatedLink.open(
      to: target, device: address, model: model, faults: faults[address] ?? .none, capacity: capacity)
    var open: [SimulatedLink] = []
    for known in links[address] ?? [] where await !known.connection.isEnded { open.append(known) }
    links[address] = open + [link]
    return bearer
  }

  /// Drops every open link to `address` from the device side ("disconnect at a chosen moment").
  public func disconnect(_ address: BluetoothAddress) async {
    for link in links[address] ?? [] { await link.disconnect() }
    links[address] = nil
  }
}

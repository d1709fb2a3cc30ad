import Foundation

/// The storage seam of the fleet registry (SQLite, or PostgreSQL shared by several gateways): where `FleetRegistry` keeps its devices and their
/// history. `SQLiteRegistryStore` is the embedded default, in the journal's SQLite file;
/// `FleetIO.PostgresRegistryStore` keeps the registry on the server several gateways share, so one
/// `audit` covers the whole site. How a sighting or read changes a device stays in `RegistryChange`, so
/// every store merges the same way.
public protocol RegistryStore: Sendable {
  /// Where the registry lives, for messages (no password).
  var location: String { get }
  /// Applies each change to its device (`RegistryChange.applied(to:)` on the stored row, or on none), saves
  /// the device, and adds the change's history point keeping the newest `historyLimit` per device.
  func apply(_ changes: [RegistryChange], historyLimit: Int) async throws
  /// Every device, by address, with its last `apply` and `dfu` runs.
  func devices() async throws -> [RegistryDevice]
  /// One device (its address normalised), or nil.
  func device(_ address: String) async throws -> RegistryDevice?
  /// A device's history, oldest first.
  func history(_ address: String) async throws -> [RegistryReading]
}

/// One sighting, read or identity a registry store folds into a device.
public struct RegistryChange: Sendable, Hashable {
  let observation: RegistryObservation

  /// The device's address as the registry keys it (upper case).
  public var address: String { observation.address }
  /// When it was observed.
  public var at: Date { observation.at }
  /// The history point it adds, when it carries an RSSI or a battery value.
  public var reading: RegistryReading? { observation.reading }
  /// Whether it records a configuration read over a link (not a sighting or an identity).
  public var isConfigurationRead: Bool { observation.configurationHash != nil }

  /// The device after this change: `known` with what the change says folded in, or a new device.
  public func applied(to known: RegistryDevice?) -> RegistryDevice {
    guard var device = known else { return RegistryDevice(first: observation) }
    device.absorb(observation)
    return device
  }

  /// An address as the registry keys it.
  public static func normalised(_ address: String) -> String { RegistryObservation.normalised(address) }

  /// The run kinds a registry device links to (`apply`, `dfu`); `plan` runs change nothing.
  public static var linkedKinds: [String] { FleetRegistry.linkedKinds }
}

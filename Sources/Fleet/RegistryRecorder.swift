import BeaconCore
import Foundation
import Profiles

/// Keeps the fleet registry current from a command or a campaign, best effort: the registry is a record
/// of what was seen, not part of any device's work, so a registry write that fails never fails a scan, a
/// visit or a campaign. The failure goes to `warn` instead (the CLI logs it as a warning on standard
/// error), once per recorder, so a broken database does not print one warning per device.
public struct RegistryRecorder: Sendable {
  public let registry: FleetRegistry
  let warn: @Sendable (String) -> Void
  private let warned = OnceFlag()

  public init(registry: FleetRegistry, warn: @escaping @Sendable (String) -> Void) {
    self.registry = registry
    self.warn = warn
  }

  /// `FleetRegistry.recordSightings`, failures warned about.
  public func sightings(_ records: [DeviceRecord], at: Date = Date()) async {
    await quietly { try await registry.recordSightings(records, at: at) }
  }

  /// `FleetRegistry.recordRead`, failures warned about.
  public func read(address: String, configuration: DeviceConfigView, at: Date = Date()) async {
    await quietly { try await registry.recordRead(address: address, configuration: configuration, at: at) }
  }

  /// `FleetRegistry.recordIdentity`, failures warned about.
  public func identity(address: String, _ identity: DeviceIdentity, at: Date = Date()) async {
    await quietly { try await registry.recordIdentity(address: address, identity, at: at) }
  }

  private func quietly(_ body: () async throws -> Void) async {
    do {
      try await body()
    } catch {
      if warned.take() { warn("cannot update the fleet registry in \(registry.location): \(error)") }
    }
  }
}

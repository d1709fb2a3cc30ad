import BeaconCore
import KBeacon
import Profiles

/// A password in memory. It never prints: `description` and string interpolation show a mask, it is not
/// `Codable`, and the journal stores only where it came from.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
  public let value: String
  public init(_ value: String) { self.value = value }
  public var description: String { "••••••••" }
  public var debugDescription: String { "Secret(••••••••)" }
}

/// One authenticated configuration link to a device, as the campaign needs it. `KBeaconSession` is
/// adapted to this in the composition root; tests and benchmarks use the simulated devices through the
/// same adapter.
public protocol ConfigurationSession: Sendable {
  /// The configuration, read back (docs/protocols/kbeacon.md §6.1): the common keys and the given sections.
  /// Reading only what a profile manages saves `getPara` exchanges and their report fragments.
  func readConfiguration(_ sections: ConfigSections) async throws -> DeviceConfigView
  /// One `cfg` message holding exactly `patch` (§6.2).
  func write(_ patch: DeviceConfigView) async throws
  func close() async
}

/// Opens sessions: connect, authenticate.
public protocol SessionOpener: Sendable {
  func open(_ target: Target, password: Secret) async throws -> any ConfigurationSession
}

/// A device the campaign is to visit, as the scan found it.
public struct Target: Sendable, Hashable {
  public var address: BluetoothAddress
  public var addressType: AddressType
  public var name: String?
  /// The RSSI the scan heard the device at, in dBm (the sighting a shared run's nearest-gateway rule weighs);
  /// `heardRSSI(_:)` makes it. Nil for a device this gateway did not hear (a resumed run's unfinished ones).
  public var rssi: Int?

  /// The RSSI of a device the scan heard whose controller reported none (HCI's 127, "not available", as
  /// BlueZ's virtual controllers always report): the weakest there is, −127 dBm [I: the device was heard, so
  /// this gateway may take it in a shared run; a gateway that measured it wins the nearest-gateway rule].
  /// Without it such a device was no sighting at all, and no gateway ever claimed it.
  public static func heardRSSI(_ latest: Int8?) -> Int { latest.map(Int.init) ?? -127 }

  /// The target a scan's record of a device makes: its address, address type, name and `heardRSSI` of the
  /// latest report.
  public init(heard record: DeviceRecord) {
    self.init(
      address: record.address, addressType: record.addressType, name: record.name,
      rssi: Self.heardRSSI(record.rssi.latest))
  }

  public init(address: BluetoothAddress, addressType: AddressType = .public, name: String? = nil, rssi: Int? = nil) {
    self.address = address
    self.addressType = addressType
    self.name = name
    self.rssi = rssi
  }

  /// Each target's address type by address text, as `Journal.createRun` records them.
  public static func addressTypes(_ targets: [Target]) -> [String: AddressType] {
    Dictionary(targets.map { ($0.address.description, $0.addressType) }, uniquingKeysWith: { first, _ in first })
  }
}

/// How the campaign treats an error from a session: retry later, or stop with this device.
public enum FailureKind: String, Sendable, Codable {
  /// Link dropped, timeout, device busy: worth another attempt after a pause.
  case transient
  /// The device refused the password. Never retried: devices may lock out (docs/protocols/kbeacon.md §14).
  case wrongPassword
  /// The device refused a value or cannot do what the profile wants: retrying would not help.
  case permanent
  /// A Secure DFU bootloader answers at the device's address instead of the device (`BootloaderAtAddress`):
  /// the device's own, or its neighbour's one address below, after an unfinished update. Worth another
  /// attempt like `transient`, but only once the bootloader's inactivity timeout has passed: `reconcile`
  /// waits that long (`ReconcileLedger.firmwareShadowed`) instead of counting a failure.
  case bootloaderAtAddress

  /// Whether another attempt may succeed (a campaign retries these after its pause).
  public var isRetryable: Bool { self == .transient || self == .bootloaderAtAddress }
}

/// Errors that know their `FailureKind`. Errors that do not conform count as permanent.
public protocol ClassifiedFailure: Error {
  var failureKind: FailureKind { get }
}

extension LinkError: ClassifiedFailure {
  public var failureKind: FailureKind {
    switch code {
    case .unknownDevice, .notConnectable: .permanent
    default: .transient
    }
  }
}

extension GATTError: ClassifiedFailure {
  /// A transaction timeout closed the bearer (Core Vol 3 Part F §3.3.3), not the device's will: a fresh link
  /// may well answer (a device briefly out of range, a controller that lost the link's state), so it is worth
  /// another attempt. Everything else — a peer breaking the protocol, a missing characteristic, a value too
  /// long — would happen again.
  public var failureKind: FailureKind {
    if case .transactionTimeout = self { .transient } else { .permanent }
  }
}

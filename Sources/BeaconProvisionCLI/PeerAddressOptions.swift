import ArgumentParser
import BeaconCore
import BlueZ
import Logging

/// How a command that connects to one device named on the command line (`read`, `ring`, `reset`,
/// `history`, `gatt …`, `dfu ble`) reaches it: `--address-type public|random`, or — without it — a short
/// scan that learns the type the device advertises with (`AddressTypeProbe`), through `--scan-backend`.
///
/// An LE link is made to an address *and* its type (Core v5.4 Vol 6 Part B §1.3; the kernel puts both on
/// its accept list), so a device on a static random address — as KKM tags use (docs/protocols/kbeacon.md §5/§14)
/// — is never reached as a public one: the connect just times out. `plan`, `apply` and `dfu update` take
/// the type from their scan; these commands learn it the same way unless told. `--random` is kept, hidden,
/// as a deprecated spelling of `--address-type random` (`gatt` had it).
public struct PeerAddressOptions: ParsableArguments, Sendable {
  @Option(
    name: .customLong("address-type"),
    help: ArgumentHelp(
      "public or random: the device's address type, to connect without first scanning for it (default: learn it from a short scan).",
      valueName: "type"))
  public var addressType: AddressType?

  @Flag(name: .customLong("random"), help: ArgumentHelp("Deprecated: --address-type random.", visibility: .hidden))
  public var random = false

  @OptionGroup public var scanBackend: ScanBackendOption

  /// How long the scan listens for the device before giving up [I]: 10 s covers a KBeacon's slowest
  /// usual interval (docs/protocols/kbeacon.md §6: advertising periods up to 10 s) with a margin for a missed PDU.
  public static let probeLimit: Duration = .seconds(10)

  public init() {}

  public func validate() throws {
    if random, addressType == .public { throw ValidationError("--random contradicts --address-type public") }
  }

  /// The type given on the command line, if any.
  public var override: AddressType? { addressType ?? (random ? .random : nil) }

  /// The type to connect with: the override, else what a scan hears `address` advertise with. When the scan
  /// does not hear it within `limit`, `unheard` is used if given (`dfu ble`: a device already in its
  /// bootloader is silent at its application address), else the command fails saying how to go on.
  func resolve(
    _ address: BluetoothAddress, on central: any Central, unheard: AddressType? = nil,
    within limit: Duration = probeLimit
  ) async throws -> AddressType {
    let log = CLILog.logger("address")
    if let override {
      log.debug("address type given", metadata: ["device": "\(address)", "type": "\(override)"])
      return override
    }
    log.debug("scanning to learn the address type", metadata: ["device": "\(address)", "adapter": "\(central.name)"])
    let heard: AddressType?
    do {
      heard = try await AddressTypeProbe.learn(address, on: central, within: limit)
    } catch let error as CancellationError {
      throw error
    } catch {
      throw CLIFailure(
        "cannot scan \(central.name) for \(address) to learn its address type: \(liveFailure(error)); "
          + "give --address-type public|random to connect without scanning")
    }
    if let type = heard ?? unheard {
      log.info("address type", metadata: ["device": "\(address)", "type": "\(type)", "heard": "\(heard != nil)"])
      return type
    }
    throw CLIFailure(
      "\(address) was not heard on \(central.name) within \(Self.seconds(limit)) s, so its address type "
        + "is unknown; check it is advertising and in range, or give --address-type public|random to connect without scanning"
    )
  }
}

extension PeerAddressOptions {
  /// `10`, `0.3`.
  static func seconds(_ d: Duration) -> String {
    let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    return ms % 1000 == 0 ? String(ms / 1000) : String(Double(ms) / 1000)
  }
}

/// `--address-type public|random`.
extension AddressType: ExpressibleByArgument {
  public init?(argument: String) {
    switch argument {
    case "public": self = .public
    case "random": self = .random
    default: return nil
    }
  }

  public static var allValueStrings: [String] { ["public", "random"] }

  /// How a default shows in `--help` (the raw value would read "1").
  public var defaultValueDescription: String { self == .random ? "random" : "public" }
}

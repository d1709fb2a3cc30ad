import ArgumentParser
import BeaconCore
import Foundation
import Logging

/// `beacon-provision gatt …`: a GATT client on the command line, in the spirit of BlueZ's btgatt-client
/// (docs/protocols/linux-ble.md §1): list the database, read, write, and watch notifications of one device.
struct GATTCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gatt",
    abstract: "Inspect a device's GATT database; read, write and watch characteristics.",
    discussion: """
      `gatt ADDR` lists services, characteristics and descriptors with their handles and properties.
      A TARGET is a characteristic UUID (FEA1, 8 hex digits, or the 36-character form) or an attribute handle \
      written as 0x followed by hex digits (0x000B).

      \(ExitStatus.group)
      """,
    subcommands: [GATTServicesCommand.self, GATTReadCommand.self, GATTWriteCommand.self, GATTNotifyCommand.self],
    defaultSubcommand: GATTServicesCommand.self)
}

/// Options every `gatt` subcommand shares: the radio, the device, and how to reach it.
struct GATTConnectionOptions: ParsableArguments, Sendable {
  @OptionGroup var adapterOptions: AdapterOptions

  @Argument(help: ArgumentHelp("The device address, AA:BB:CC:DD:EE:FF.", valueName: "address"))
  var address: String

  @OptionGroup var peer: PeerAddressOptions

  @Option(help: ArgumentHelp("Seconds to wait for the link.", valueName: "seconds"))
  var connectTimeout: Double = 10

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard BluetoothAddress(address) != nil else {
      throw ValidationError("'\(address)' is not a Bluetooth address (AA:BB:CC:DD:EE:FF)")
    }
    try SecondsOption.validate(connectTimeout, "--connect-timeout")
  }

  /// Connects with the device's address type (`--address-type`, else learned by a short scan), exchanges
  /// MTUs (asking for 247), and returns the client. Errors become one-line failures.
  func connect() async throws -> GATTClient { try await connectKeepingCentral().client }

  /// `connect()`, also returning the central: a caller whose device keeps state in a simulated fleet
  /// holds the central for as long as the link, since the simulation (and its state saving) lives only
  /// as long as its central.
  func connectKeepingCentral() async throws -> (central: any Central, client: GATTClient) {
    let central = try await CentralFactory.make(adapterOptions.adapter, scanBackend: peer.scanBackend.value)
    let device = BluetoothAddress(address)!
    let type = try await peer.resolve(device, on: central)
    let log = CLILog.logger("gatt")
    do {
      log.info("connecting", metadata: ["device": "\(device)", "type": "\(type)", "adapter": "\(central.name)"])
      let bearer = try await central.connect(
        to: device, type: type, timeout: SecondsOption.duration(connectTimeout))
      let client = GATTClient(bearer: bearer)
      let mtu = try await client.exchangeMTU()
      log.debug("link up", metadata: ["device": "\(device)", "mtu": "\(mtu)"])
      return (central, client)
    } catch {
      throw CLIFailure("cannot connect to \(device) (\(type)) on \(central.name): \(error)")
    }
  }
}

/// A characteristic named on the command line: by UUID, or an attribute handle as `0x…`.
enum GATTTarget: Equatable, ExpressibleByArgument, CustomStringConvertible {
  case uuid(BluetoothUUID)
  case handle(UInt16)

  init?(argument: String) {
    if argument.hasPrefix("0x") || argument.hasPrefix("0X") {
      guard let h = UInt16(argument.dropFirst(2), radix: 16), h != 0 else { return nil }
      self = .handle(h)
    } else if let uuid = BluetoothUUID(argument) {
      self = .uuid(uuid)
    } else {
      return nil
    }
  }

  var description: String {
    switch self {
    case .uuid(let u): "characteristic \(u)"
    case .handle(let h): "handle \(GATTText.handle(h))"
    }
  }

  /// The attribute handle to read or write: a characteristic's value handle, or the handle as given.
  func valueHandle(on client: GATTClient) async throws -> UInt16 {
    switch self {
    case .handle(let h): return h
    case .uuid(let u): return try await client.characteristic(u).valueHandle
    }
  }
}

/// Turns GATT errors into the one line an operator sees.
func gattFailure(_ error: any Error, _ what: String) -> CLIFailure {
  if let failure = error as? CLIFailure { return failure }
  return CLIFailure("\(what): \(error)")
}

import ArgumentParser
import BeaconCore
import BlueZ
import Foundation

/// `radio gatt`: `BlueZCentral.connect` (L2CAP CID 4 → `FileDescriptorBearer`) then the GATT client:
/// MTU exchange, full discovery, and a read of the GAP Device Name when the peer has one.
struct RadioGATTCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gatt", abstract: "Connect through BlueZCentral and list the peer's GATT services.",
    discussion: ExitStatus.paragraph("0 listed; 1 an error (no such adapter, the link failed)"))

  @Option(help: "The adapter (hci0, …).") var adapter = "hci0"
  @Option(name: .customLong("address-type"), help: "public or random.") var addressType: AddressType = .public
  @Option(help: "Connect timeout in seconds.") var timeout: Double = 20
  @Argument(help: "The peer address.") var address: String

  func validate() throws { try SecondsOption.validate(timeout, "--timeout") }

  func run() async throws {
    let peer = try parseAddress(address)
    do {
      let bearer = try await CentralFactory.bluezCentral(adapter).connect(
        to: peer, type: addressType, timeout: SecondsOption.duration(timeout))
      let client = GATTClient(bearer: bearer, transactionTimeout: .seconds(10))
      print("connected to \(peer); MTU \(try await client.exchangeMTU())")
      let database = try await client.discover()
      for service in database.services {
        print("service \(service.uuid) handles \(service.startHandle)-\(service.endHandle)")
        for c in service.characteristics {
          print("  characteristic \(c.uuid) value handle \(c.valueHandle) [\(c.properties)]")
        }
      }
      if let name = database.characteristic(BluetoothUUID(0x2A00)), name.properties.contains(.read) {
        print("device name \"\(String(decoding: try await client.read(name.valueHandle), as: UTF8.self))\"")
      }
      await client.close()
    } catch {
      throw liveFailure(error)
    }
  }
}

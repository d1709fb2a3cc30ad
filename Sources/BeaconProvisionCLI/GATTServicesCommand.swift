import ArgumentParser
import BeaconCore

/// `beacon-provision gatt ADDR` / `gatt services ADDR`: the device's whole GATT database.
struct GATTServicesCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "services",
    abstract: "List services, characteristics (properties, handles) and descriptors.",
    discussion: ExitStatus.paragraph("0 listed; 1 an error (no such device, the link failed)"))

  @OptionGroup var connection: GATTConnectionOptions
  var logging: LoggingOptions { connection.logging }

  @Flag(help: "Print JSON.")
  var json = false

  func run() async throws {
    let client = try await connection.connect()
    do {
      let db = try await client.discover()
      if json {
        let peer = BluetoothAddress(connection.address)!
        print(try JSONOutput.string(GATTText.DatabaseJSON(address: peer, mtu: await client.mtu, db: db)))
      } else {
        print(GATTText.render(db))
      }
    } catch {
      await client.close()
      throw gattFailure(error, "discovery failed")
    }
    await client.close()
  }
}

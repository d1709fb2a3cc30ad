import ArgumentParser
import BeaconCore

/// `beacon-provision gatt notify ADDR UUID [--count N]`: enables notifications (or indications, when the
/// characteristic only indicates) and prints each value as it arrives, until Ctrl-C or N values.
struct GattNotify: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "notify", abstract: "Print a characteristic's notifications or indications as they arrive.")

  @OptionGroup var connection: GattConnectionOptions

  @Argument(help: ArgumentHelp("Characteristic UUID.", valueName: "uuid"))
  var uuid: String

  @Option(help: ArgumentHelp("Stop after this many values.", valueName: "n"))
  var count: Int?

  func validate() throws {
    guard BluetoothUUID(uuid) != nil else {
      throw ValidationError("'\(uuid)' is not a UUID (FEA2, or the 36-character form)")
    }
    if let count, count < 1 { throw ValidationError("--count must be at least 1") }
  }

  func run() async throws {
    let client = try await connection.connect()
    var received = 0
    do {
      let characteristic = try await client.characteristic(BluetoothUUID(uuid)!)
      let values = try await client.subscribe(to: characteristic)
      FileHandleOutput.standardError(
        "subscribed to \(GattText.label(characteristic.uuid)) (value \(GattText.handle(characteristic.valueHandle))); Ctrl-C to stop"
      )
      for await value in values {
        received += 1
        print(GattRead.line(value))
        if let count, received >= count { break }
      }
    } catch {
      await client.close()
      throw gattFailure(error, "cannot subscribe to \(uuid)")
    }
    let ended = await client.terminationError
    await client.close()
    if let ended, count.map({ received < $0 }) ?? true {
      throw CLIFailure("link ended after \(received) value(s): \(ended)")
    }
  }
}

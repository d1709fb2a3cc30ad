import ArgumentParser
import BeaconCore

/// `beacon-provision gatt notify ADDR UUID [--count N]`: enables notifications (or indications, when the
/// characteristic only indicates) and prints each value as it arrives, until Ctrl-C or N values.
///
/// Leaving — after N values or on Ctrl-C/SIGTERM — writes the CCCD back to 0x0000 (Core v5.4 Vol 3 Part G
/// §3.3.3.3) before the link closes: the kernel keeps an idle LE link up a moment after the socket
/// closes, and an indication sent then is never confirmed, which blocks the peripheral's indication queue
/// for the 30 s ATT transaction timeout (Part F §3.3.3).
struct GATTNotifyCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "notify", abstract: "Print a characteristic's notifications or indications as they arrive.",
    discussion: ExitStatus.paragraph(
      "0 stopped (Ctrl-C or the time given); 1 an error (no such device or characteristic, the link failed)"))

  @OptionGroup var connection: GATTConnectionOptions
  var logging: LoggingOptions { connection.logging }

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
    let (connection, uuid, count) = (connection, BluetoothUUID(uuid)!, count)
    // Ctrl-C cancels the watch instead of killing the process, so the CCCD is written back first.
    try await SignalCancellation.run {
      let client = try await connection.connect()
      try await Self.watch(
        client, uuid: uuid, count: count, emit: { print($0) },
        subscribed: { characteristic in
          FileHandleOutput.standardError(
            "subscribed to \(GATTText.label(characteristic.uuid)) (value \(GATTText.handle(characteristic.valueHandle))); Ctrl-C to stop"
          )
        })
    }
  }

  /// Subscribes, emits each value, and when done (N values, the task cancelled) unsubscribes, then closes
  /// the client. A link that ended before N values is an error.
  static func watch(
    _ client: GATTClient, uuid: BluetoothUUID, count: Int?, emit: @Sendable (String) -> Void,
    subscribed: @Sendable (GATTCharacteristic) async -> Void
  ) async throws {
    var received = 0
    let characteristic: GATTCharacteristic
    do {
      characteristic = try await client.characteristic(uuid)
      let values = try await client.subscribe(to: characteristic)
      await subscribed(characteristic)
      for await value in values {
        received += 1
        emit(GATTReadCommand.line(value))
        if let count, received >= count { break }
      }
    } catch {
      await client.close()
      throw gattFailure(error, "cannot subscribe to \(uuid)")
    }
    await unsubscribe(client, from: characteristic)
    let ended = await client.terminationError
    await client.close()
    if let ended, count.map({ received < $0 }) ?? true {
      throw CLIFailure("link ended after \(received) value(s): \(ended)")
    }
  }

  /// CCCD back to 0x0000 while the link is up. Runs in its own task: the watch may be cancelled (Ctrl-C),
  /// and this write must still go out. A failure (the link already gone) changes nothing for the operator.
  static func unsubscribe(_ client: GATTClient, from characteristic: GATTCharacteristic) async {
    guard await client.terminationError == nil else { return }
    await Task { try? await client.unsubscribe(from: characteristic) }.value
  }
}

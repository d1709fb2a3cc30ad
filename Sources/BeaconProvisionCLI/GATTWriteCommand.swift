import ArgumentParser
import BeaconCore

/// `beacon-provision gatt write ADDR TARGET HEX [--without-response]`: a Write Request (long values through
/// Prepare/Execute Write) or a Write Command.
struct GATTWriteCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "write", abstract: "Write a characteristic or attribute value.",
    discussion: ExitStatus.paragraph(
      "0 written; 1 an error (no such device or characteristic, the link failed, the write was refused)"))

  @OptionGroup var connection: GATTConnectionOptions
  var logging: LoggingOptions { connection.logging }

  @Argument(help: ArgumentHelp("Characteristic UUID, or attribute handle as 0x….", valueName: "target"))
  var target: GATTTarget

  @Argument(help: ArgumentHelp("The value as hex digits (spaces and colons allowed).", valueName: "hex"))
  var hex: String

  @Flag(help: "Send a Write Command (no response) instead of a Write Request.")
  var withoutResponse = false

  func validate() throws {
    guard let value = Hex.decode(hex) else {
      throw ValidationError("'\(hex)' is not hex (an even number of 0-9 A-F digits)")
    }
    guard value.count <= ATTLimits.maximumValueLength else {
      throw ValidationError("a value is at most \(ATTLimits.maximumValueLength) octets; this one has \(value.count)")
    }
  }

  func run() async throws {
    let value = Hex.decode(hex)!
    let client = try await connection.connect()
    do {
      let handle = try await target.valueHandle(on: client)
      if withoutResponse {
        try await client.writeWithoutResponse(value, to: handle)
      } else {
        try await client.write(value, to: handle)
      }
      await client.close()
      print(
        "wrote \(value.count) octet(s) to \(GATTText.handle(handle))\(withoutResponse ? " (without response)" : "")")
    } catch {
      await client.close()
      throw gattFailure(error, "cannot write \(target)")
    }
  }
}

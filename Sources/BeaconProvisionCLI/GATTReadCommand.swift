import ArgumentParser
import BeaconCore

/// `beacon-provision gatt read ADDR TARGET`: reads a value (long values through Read Blob) and prints it
/// as hex, plus the text when it is printable UTF-8.
struct GATTReadCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "read", abstract: "Read a characteristic or attribute value.",
    discussion: ExitStatus.paragraph(
      "0 read; 1 an error (no such device or characteristic, the link failed, the read was refused)"))

  @OptionGroup var connection: GATTConnectionOptions
  var logging: LoggingOptions { connection.logging }

  @Argument(help: ArgumentHelp("Characteristic UUID, or attribute handle as 0x….", valueName: "target"))
  var target: GATTTarget

  @Flag(help: "Print JSON.")
  var json = false

  func run() async throws {
    let client = try await connection.connect()
    do {
      let handle = try await target.valueHandle(on: client)
      let value = try await client.read(handle)
      await client.close()
      print(json ? try JSONOutput.string(ValueJSON(handle: handle, value: value)) : Self.line(value))
    } catch {
      await client.close()
      throw gattFailure(error, "cannot read \(target)")
    }
  }

  /// `4B 42 50 72 6F  "KBPro"`.
  static func line(_ value: [UInt8]) -> String {
    let hex = value.map(hexByte).joined(separator: " ")
    guard !value.isEmpty, let text = String(validating: value, as: UTF8.self),
      text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
    else { return hex.isEmpty ? "(empty)" : hex }
    return "\(hex)  \"\(text)\""
  }

  struct ValueJSON: Encodable {
    var handle: UInt16
    var hex: String
    init(handle: UInt16, value: [UInt8]) {
      self.handle = handle
      hex = Hex.encode(value)
    }
  }
}

import ArgumentParser
import BeaconCore

/// `beacon-provision decode HEX`: decodes one advertising payload (AD structures as hex, as an HCI LE
/// Advertising Report carries them) and prints its AD structures and beacon frames as JSON.
struct DecodeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "decode",
    abstract: "Decode one raw advertising payload (AD structures in hex) to JSON.",
    discussion: """
      Spaces, colons and dashes between bytes are ignored.

      Example:
        beacon-provision decode \\
            0201061AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000070001C5

      \(ExitStatus.paragraph(
        "0 decoded (AD structures that do not parse are listed as malformed, with why); "
        + "1 the text is not hex bytes, or is empty"))
      """)

  @Argument(help: ArgumentHelp("The AD structures as hex.", valueName: "hex"))
  var hex: [String]

  func run() throws {
    print(try output())
  }

  /// The longest payload taken: 1,650 bytes, the most an extended advertising train carries (Core 5.x
  /// Vol 6 Part B §2.3.4.9, Advertising Data up to 1650 octets); a legacy advertisement is 31 bytes and a
  /// scan response 31 more. A 600 KB argument took 283 MB.
  static let maximumPayloadBytes = 1650

  /// The JSON `run` prints.
  func output() throws -> String {
    let text = hex.joined()
    // Two digits a byte, and separators between them: anything longer is refused before it is decoded.
    guard text.utf8.count <= Self.maximumPayloadBytes * 3 else {
      throw CLIFailure(
        "the payload is \(text.utf8.count) characters; at most \(Self.maximumPayloadBytes) bytes are decoded "
          + "(the most an extended advertisement carries)")
    }
    guard let bytes = Hex.decode(text) else {
      throw CLIFailure("'\(text.echoed)' is not hex bytes (an even number of 0-9/A-F digits)")
    }
    guard bytes.count <= Self.maximumPayloadBytes else {
      throw CLIFailure(
        "the payload is \(bytes.count) bytes; at most \(Self.maximumPayloadBytes) are decoded "
          + "(the most an extended advertisement carries)")
    }
    guard !bytes.isEmpty else { throw CLIFailure("no bytes to decode") }
    return try JSONOutput.string(DecodedAdvertisement(bytes))
  }
}

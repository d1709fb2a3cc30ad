import ArgumentParser
import BeaconCore

/// `beacon-provision decode HEX`: decodes one advertising payload (AD structures as hex, as an HCI LE
/// Advertising Report carries them) and prints its AD structures and beacon frames as JSON.
struct Decode: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Decode one raw advertising payload (AD structures in hex) to JSON.",
    discussion: """
      Example: beacon-provision decode 0201061AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000070001C5
      Spaces, colons and dashes between bytes are ignored.

      \(ExitStatus.paragraph("0 decoded; 1 the text is not hex bytes, or is empty"))
      """)

  @Argument(help: ArgumentHelp("The AD structures as hex.", valueName: "hex"))
  var hex: [String]

  func run() throws {
    print(try output())
  }

  /// The JSON `run` prints.
  func output() throws -> String {
    let text = hex.joined()
    guard let bytes = Hex.decode(text) else {
      throw CLIFailure("'\(text)' is not hex bytes (an even number of 0-9/A-F digits)")
    }
    guard !bytes.isEmpty else { throw CLIFailure("no bytes to decode") }
    return try JSONOutput.string(DecodedAdvertisement(bytes))
  }
}

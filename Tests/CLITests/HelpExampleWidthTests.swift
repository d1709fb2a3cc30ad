import ArgumentParser
import Testing

@testable import BeaconProvisionCLI

/// The example commands in every `--help` fit an 80-column terminal as they are written: ArgumentParser
/// breaks a longer line at a space with a plain line break, and such an example, copied from the terminal,
/// runs as two commands. A long example goes on over lines that end with ` \`, as in a shell script.
@Suite(.timeLimit(.minutes(1))) struct HelpExampleWidthTests {
  @Test func everyExampleLineFitsEightyColumns() {
    var examples = 0
    for (path, command) in ExitStatusHelpTests.commands(under: BeaconProvision.self) {
      // The discussion as written (the help shows it unchanged at its full width).
      let help = command.configuration.discussion
      var continued = false
      for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
        // An example on its own line, or after a label ("Example: beacon-provision …").
        let text = line.drop { $0 == " " }
        let label = text.firstIndex(of: ":").flatMap {
          $0 < text.index(text.startIndex, offsetBy: min(12, text.count)) ? $0 : nil
        }
        let afterLabel = label.map { text[text.index(after: $0)...].drop { $0 == " " } } ?? ""
        let example =
          [text, afterLabel].contains { $0.hasPrefix("beacon-provision ") || $0.hasPrefix("BEACON_PASSWORD=") }
          || continued
        if example {
          examples += 1
          #expect(line.count < 80, "\(path) --help: an example line of \(line.count) columns: \(line)")
        }
        continued = example && line.hasSuffix(" \\")
      }
    }
    #expect(examples >= 40, "only \(examples) example lines found")
  }
}

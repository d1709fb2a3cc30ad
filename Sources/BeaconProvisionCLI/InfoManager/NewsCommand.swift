import ArgumentParser
import BeaconCore
import Foundation
import InfoManager
import InfoManagerIO

/// `beacon-provision news`: the Info Manager's translated news text (the SDK's `resolveServerNews`,
/// docs/protocols/info-manager.md).
struct NewsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "news",
    abstract: "Print the blukii Info Manager's news text in one language.",
    discussion: """
      The server is configured as for `resolve` (--info-manager, $BEACON_PROVISION_INFO_MANAGER or the config \
      file). An empty text means the Info Manager has no news in that language.

      \(ExitStatus.paragraph("0 printed (also an empty text); 1 an error (a refused request, a malformed answer, bad configuration)"))
      """)

  @Option(
    help: ArgumentHelp(
      "Language codes in priority order, separated by commas (default de-de, the first of the SDK's priority): the "
        + "news of the first that has any is printed.", valueName: "codes"))
  var language: String = "de-de"

  @OptionGroup(title: "Info Manager") var infoManager: InfoManagerOptions

  @Flag(help: "Print {\"language\": …, \"text\": …}.")
  var json = false

  func validate() throws {
    do { _ = try LanguagePriority(parsing: language) } catch { throw ValidationError("--language: \(error)") }
  }

  func run() async throws {
    guard let configuration = try await infoManager.resolvedConfiguration() else {
      throw CLIFailure(
        "no Info Manager configured: give --info-manager URL or set \(InfoManagerOptions.urlVariable) (see resolve --help)"
      )
    }
    // The SDK asks for one language; a list is asked in order until a language has news (an empty text
    // means none in that language), so `de-de,en-gb` falls back as `resolve --language` does.
    let codes = try LanguagePriority(parsing: language).codes
    var code = codes[0]
    var text = ""
    for candidate in codes {
      do {
        (code, text) = (candidate, try await configuration.client.news(languageCode: candidate))
      } catch let failure as InfoManagerFailure {
        throw CLIFailure(failure.description)
      }
      if !text.isEmpty { break }
    }
    if json {
      print(try JSONOutput.string(NewsJSON(language: code, text: text)))
    } else {
      // The server's text, with its control characters escaped (line breaks kept).
      print(
        text.isEmpty
          ? "(no news in \(codes.joined(separator: ", ")))" : TerminalText.escaped(text, keepingLineBreaks: true))
    }
  }
}

struct NewsJSON: Encodable {
  var language: String
  var text: String
}

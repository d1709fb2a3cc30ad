import ArgumentParser
import BeaconCore
import Foundation
import InfoManager
import InfoManagerCloud

/// `beacon-provision news`: the Info Manager's translated news text (the SDK's `resolveServerNews`,
/// seed-systems.md §6).
struct NewsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "news",
    abstract: "Print the blukii Info Manager's news text in one language.",
    discussion: """
      The server is configured as for `resolve` (--info-manager, $BEACON_PROVISION_INFO_MANAGER or the config \
      file). An empty text means the Info Manager has no news in that language.
      """)

  @Option(help: ArgumentHelp("The language code (default de-de, the first of the SDK's priority).", valueName: "code"))
  var language: String = "de-de"

  @OptionGroup(title: "Info Manager") var infoManager: InfoManagerOptions

  @Flag(help: "Print {\"language\": …, \"text\": …}.")
  var json = false

  func validate() throws {
    do { _ = try LanguagePriority.code(language) } catch { throw ValidationError("--language: \(error)") }
  }

  func run() async throws {
    guard let configuration = try await infoManager.resolvedConfiguration() else {
      throw CLIFailure("no Info Manager configured: give --info-manager URL or set \(InfoManagerOptions.urlVariable) (see resolve --help)")
    }
    let code = try LanguagePriority.code(language)
    let text: String
    do {
      text = try await configuration.client.news(languageCode: code)
    } catch let failure as InfoManagerFailure {
      throw CLIFailure(failure.description)
    }
    if json {
      print(try JSONOutput.string(NewsJSON(language: code, text: text)))
    } else {
      // The server's text, with its control characters escaped (line breaks kept).
      print(text.isEmpty ? "(no news in \(code))" : TerminalText.escaped(text, keepingLineBreaks: true))
    }
  }
}

struct NewsJSON: Encodable {
  var language: String
  var text: String
}

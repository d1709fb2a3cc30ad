import ArgumentParser

/// `beacon-provision firmware …`: KKM firmware catalogues (docs/protocols/kbeacon.md §11) and the verified cache.
struct FirmwareCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "firmware",
    abstract: "Firmware catalogues and the verified local firmware cache.",
    discussion: """
      A catalogue is <base>/<model>.json: per hardware version (hver), the releases {appVersion, appFileName, \
      note} and optionally sha256 and size; each package is <base>/<appFileName>. Packages are verified \
      (size, sha256, every 'dfu inspect' check) before they enter the cache. 'dfu update --firmware latest' \
      runs a campaign from the catalogue.

      Examples:
        beacon-provision firmware catalog KBPro_SIM \\
            --catalog firmware/example --current V5.12
        beacon-provision firmware fetch KBPro_SIM --hver V1.0 \\
            --catalog firmware/example
        beacon-provision firmware list

      \(ExitStatus.group)
      """,
    subcommands: [
      FirmwareCatalogCommand.self, FirmwareFetchCommand.self, FirmwareListCommand.self, FirmwarePruneCommand.self,
    ])
}

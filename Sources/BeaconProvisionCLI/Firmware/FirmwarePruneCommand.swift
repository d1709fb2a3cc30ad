import ArgumentParser
import FirmwareIO
import Foundation
import NordicDFU

/// `beacon-provision firmware prune`: removes unfinished downloads and all but the newest packages.
struct FirmwarePruneCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "prune",
    abstract: "Remove unfinished downloads and all but the newest cached packages of each model and hardware version.",
    discussion: ExitStatus.paragraph("0 pruned; 1 the cache cannot be read or a file cannot be removed"))

  @Option(help: "Packages to keep per model and hardware version (0 removes every package).")
  var keep = 1

  @Option(
    name: .customLong("firmware-dir"),
    help: ArgumentHelp("The firmware cache (default: the XDG cache folder).", valueName: "dir"))
  var firmwareDirectory: String?

  func validate() throws {
    guard keep >= 0 else { throw ValidationError("--keep must be 0 or more") }
  }

  func run() async throws {
    let removed = try await FirmwareCache.inFolder(firmwareDirectory).prune(keep: keep)
    for path in removed { print("removed \(path)") }
    if removed.isEmpty { print("nothing to remove") }
  }
}

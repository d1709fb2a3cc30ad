import ArgumentParser
import BlueZ
import Foundation

/// `beacon-provision adapters`: the local Bluetooth controllers.
struct AdaptersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "adapters",
    abstract: "List local Bluetooth adapters (hci0, hci1, …).",
    discussion: ExitStatus.discussion(
      "The simulated fleet is always available as --adapter sim and is not listed here.",
      codes: "0 listed (also when there is none); 1 the adapters cannot be enumerated"))

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    let adapters = try CentralFactory.adapters()
    if json {
      print(try JSONOutput.string(adapters))
    } else if adapters.isEmpty {
      print("no Bluetooth adapters (use --adapter sim for the simulated fleet)")
    } else {
      for a in adapters { print("\(a.name)  \(a.address)  \(a.isUp ? "up" : "down")") }
    }
  }
}

import ArgumentParser
import BeaconCore
import BlueZ
import Foundation

/// `radio advertise`: advertises raw AD bytes with `HCIAdvertiser` until the duration ends.
struct RadioAdvertiseCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "advertise", abstract: "Advertise raw AD bytes (hex) through HCI commands.",
    discussion: ExitStatus.paragraph(
      "0 advertised for the time given; 1 an error (no such adapter, a refused HCI command)"))

  @Option(help: "The adapter (hci1, …).") var adapter = "hci1"
  @Flag(help: "ADV_NONCONN_IND instead of ADV_IND.") var nonConnectable = false
  @Option(help: "Scan response AD bytes (hex).") var scanResponse: String = ""
  @Option(help: "Interval in units of 0.625 ms.") var interval: UInt16 = 0x00A0
  @Option(help: "Seconds to advertise before stopping; 0 leaves advertising on and exits.") var duration: Double = 30
  @Flag(help: "Only switch advertising off.") var off = false
  @Argument(help: "Advertising AD bytes (hex).") var data: String = ""

  func validate() throws { try SecondsOption.validate(duration, "--duration", zeroAllowed: true) }

  func run() async throws {
    guard let ad = Hex.decode(data), let sr = Hex.decode(scanResponse) else {
      throw CLIFailure("advertising data and scan response must be hex")
    }
    do {
      let advertiser = try await CentralFactory.advertiser(on: adapter)
      if off {
        try await advertiser.stop()
        advertiser.close()
        print("advertising off on \(adapter)")
        return
      }
      try await advertiser.start(
        AdvertisingSettings(connectable: !nonConnectable, interval: interval, advertisingData: ad, scanResponseData: sr)
      )
      print("advertising on \(adapter) (\(advertiser.usesExtendedCommands ? "extended" : "legacy") commands)")
      fflush(nil)
      guard duration > 0 else {
        advertiser.close()
        print("advertising left on")
        return
      }
      // SIGINT/SIGTERM end the wait early; advertising is switched off either way.
      _ = try? await SignalCancellation.run { [duration] in try await Task.sleep(for: SecondsOption.duration(duration))
      }
      try await advertiser.stop()
      advertiser.close()
    } catch {
      throw liveFailure(error)
    }
    print("advertising stopped")
  }
}

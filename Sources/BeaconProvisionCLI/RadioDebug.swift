import ArgumentParser
import BeaconCore
import BlueZ
import Foundation

/// `beacon-provision radio …` (hidden): low-level checks of the live BlueZ layer on real controllers,
/// used by the VM tier (scripts/vm/scenarios) and for field debugging. Not part of the operator surface.
struct RadioDebug: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "radio",
    abstract: "Low-level radio checks on a BlueZ adapter (scan, advertise, L2CAP).",
    shouldDisplay: false,
    subcommands: [RadioScan.self, RadioAdvertise.self, RadioListen.self, RadioConnect.self, RadioGATT.self])
}

/// `radio scan`: prints every advertising report for a while.
struct RadioScan: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan", abstract: "Print raw advertising reports: ADDRESS TYPE KIND RSSI HEX.")

  @Option(help: "The adapter (hci0, …).") var adapter = "hci0"
  @Option(help: "auto, mgmt or hci.") var backend: String = "auto"
  @Flag(help: "Passive scanning (hci backend only).") var passive = false
  @Option(help: "Seconds to scan.") var duration: Double = 5

  func validate() throws {
    guard ScanBackend(rawValue: backend) != nil else { throw ValidationError("--backend must be auto, mgmt or hci") }
  }

  func run() async throws {
    let central = BlueZCentral(adapter: adapter, scanBackend: ScanBackend(rawValue: backend) ?? .auto)
    let deadline = ContinuousClock.now + .milliseconds(Int(duration * 1000))
    do {
      let adapterInfo = try Adapter.named(adapter)
      print("scanning on \(adapter) with the \(try await central.resolvedBackend(on: adapterInfo)) backend")
      fflush(nil)
      let passive = passive
      try await SignalCancellation.run {
        try await Self.scan(central, passive: passive, until: deadline)
      }
    } catch is CancellationError {
      // SIGINT/SIGTERM: the scan was stopped cleanly.
    } catch {
      throw liveFailure(error)
    }
    print("scan done")
  }

  static func scan(_ central: BlueZCentral, passive: Bool, until deadline: ContinuousClock.Instant) async throws {
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          for try await report in central.scan(ScanParameters(active: !passive)) {
            print("\(report.address) \(report.addressType) \(report.kind) \(report.rssi) \(Hex.encode(report.data))")
            fflush(nil)
          }
        }
        group.addTask { try await Task.sleep(until: deadline) }
        do {
          try await group.next()
        } catch {
          group.cancelAll()
          await central.stopScans()
          throw error
        }
        group.cancelAll()
      }
      // Wait until the controller's scan is disabled (or discovery stopped) before the process exits.
      await central.stopScans()
  }
}

/// `radio advertise`: advertises raw AD bytes with `HCIAdvertiser` until the duration ends.
struct RadioAdvertise: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "advertise", abstract: "Advertise raw AD bytes (hex) through HCI commands.")

  @Option(help: "The adapter (hci1, …).") var adapter = "hci1"
  @Flag(help: "ADV_NONCONN_IND instead of ADV_IND.") var nonConnectable = false
  @Option(help: "Scan response AD bytes (hex).") var scanResponse: String = ""
  @Option(help: "Interval in units of 0.625 ms.") var interval: UInt16 = 0x00A0
  @Option(help: "Seconds to advertise before stopping; 0 leaves advertising on and exits.") var duration: Double = 30
  @Flag(help: "Only switch advertising off.") var off = false
  @Argument(help: "Advertising AD bytes (hex).") var data: String = ""

  func run() async throws {
    guard let ad = Hex.decode(data), let sr = Hex.decode(scanResponse) else {
      throw CLIFailure("advertising data and scan response must be hex")
    }
    do {
      let advertiser = try await HCIAdvertiser(adapter: try Adapter.named(adapter))
      if off {
        try await advertiser.stop()
        advertiser.close()
        print("advertising off on \(adapter)")
        return
      }
      try await advertiser.start(
        AdvertisingSettings(connectable: !nonConnectable, interval: interval, advertisingData: ad, scanResponseData: sr))
      print("advertising on \(adapter) (\(advertiser.usesExtendedCommands ? "extended" : "legacy") commands)")
      fflush(nil)
      guard duration > 0 else {
        advertiser.close()
        print("advertising left on")
        return
      }
      // SIGINT/SIGTERM end the wait early; advertising is switched off either way.
      _ = try? await SignalCancellation.run { [duration] in try await Task.sleep(for: .milliseconds(Int(duration * 1000))) }
      try await advertiser.stop()
      advertiser.close()
    } catch {
      throw liveFailure(error)
    }
    print("advertising stopped")
  }
}

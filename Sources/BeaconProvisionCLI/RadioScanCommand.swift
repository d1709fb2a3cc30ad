import ArgumentParser
import BeaconCore
import BlueZ
import Foundation

/// `radio scan`: prints every advertising report for a while.
struct RadioScanCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan", abstract: "Print raw advertising reports: ADDRESS TYPE KIND RSSI HEX.",
    discussion: ExitStatus.paragraph("0 the scan ran its time; 1 an error (no such adapter, a refused HCI command)"))

  @Option(help: "The adapter (hci0, …).") var adapter = "hci0"
  @Option(help: "auto, mgmt or hci.") var backend: String = "auto"
  @Flag(help: "Passive scanning (hci backend only).") var passive = false
  @Option(help: "Seconds to scan.") var duration: Double = 5

  func validate() throws {
    guard ScanBackend(rawValue: backend) != nil else { throw ValidationError("--backend must be auto, mgmt or hci") }
    try SecondsOption.validate(duration, "--duration")
  }

  func run() async throws {
    let central = CentralFactory.bluezCentral(adapter, scanBackend: ScanBackend(rawValue: backend) ?? .auto)
    let deadline = ContinuousClock.now + SecondsOption.duration(duration)
    do {
      let adapterInfo = try CentralFactory.adapter(adapter)
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

import BeaconCore
import Foundation
import JSON
import NordicDFU
import Testing

@testable import Simulator

/// The simulated bootloader's faults for the fault matrix (`DFUTargetFaults`): a link lost inside the init
/// packet and at the final Execute (docs/protocols/nordic-dfu.md §2.5), through our DFU client linked in memory.
@Suite("DFU target faults", .timeLimit(.minutes(1))) struct DFUTargetFaultTests {
  func transfer(_ host: DFUTargetHost) -> DFUTransfer {
    DFUTransfer(
      factory: host, configuration: DFUEngineConfiguration(receiptInterval: 0, maximumReconnectsWithoutProgress: 2),
      pause: { _ in })
  }

  @Test func aLinkLostInsideTheInitPacketResumesToTheRightImage() async throws {
    let image = DFUTestPackages.application(9000)
    for drop in [0, 10, image.initPacket.count - 1] {
      let host = DFUTargetHost(target: SimulatedDFUTarget(faults: DFUTargetFaults(dropLinkAtInitByte: drop)))
      try await transfer(host).run([image])
      #expect(await host.linkDrops == 1, "drop at init byte \(drop)")
      #expect(await host.target.faults.dropLinkAtInitByte == nil)
      #expect(await host.target.activated.map(\.firmware) == [image.firmware])
    }
  }

  @Test func aLinkLostAtTheFinalExecuteStillActivatesTheImage() async throws {
    let image = DFUTestPackages.application(9000, version: 9)
    let host = DFUTargetHost(target: SimulatedDFUTarget(faults: DFUTargetFaults(dropLinkAtExecute: true)))
    // the client never hears the Execute's answer; its reconnect finds no bootloader (the application runs)
    await #expect(throws: (any Error).self) { try await transfer(host).run([image]) }
    let target = await host.target
    #expect(await host.linkDrops == 1)
    #expect(target.activated.map(\.firmware) == [image.firmware])
    #expect(!target.inBootloader && target.configuration.applicationVersion == 9)
  }

  @Test func theFleetFileCarriesTheNewFaults() throws {
    func decode(_ dfu: String) throws -> SimulatedFleet {
      let json =
        #"{"version": 1, "devices": [{"address": "DD:34:02:06:F0:00", "kind": "kbeaconPro", "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}, "dfu": \#(dfu)}]}"#
      return try SimulatedFleet.decode(Data(json.utf8), file: "fleet.json")
    }
    let fleet = try decode(#"{"faults": {"dropLinkAtInitByte": 5, "dropLinkAtExecute": true}}"#)
    #expect(fleet.devices[0].dfu?.targetFaults == DFUTargetFaults(dropLinkAtInitByte: 5, dropLinkAtExecute: true))
    do {
      _ = try decode(#"{"faults": {"dropLinkAtInitByte": -1}}"#)
      Issue.record("a negative init offset was accepted")
    } catch let error as JSONDiagnostic {
      #expect(error.path.description == "$.devices[0].dfu.faults.dropLinkAtInitByte")
    }
  }
}

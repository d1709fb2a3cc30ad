import BeaconCore
import NordicDFU
import Testing

@testable import Simulator

/// Our DFU client (engine + transfer runner) against the simulated SDK 15.3 bootloader, linked in memory
/// (docs/protocols/nordic-dfu.md §2.5): fixtures, resume after drops, retries after corruption, target-side refusals.
@Suite(.timeLimit(.minutes(3))) struct SimulatedDFUTransferTests {
  func transfer(_ host: DFUTargetHost, prn: UInt16 = 12, reconnects: Int = 3) -> DFUTransfer {
    DFUTransfer(
      factory: host,
      configuration: DFUEngineConfiguration(receiptInterval: prn, maximumReconnectsWithoutProgress: reconnects),
      pause: { _ in })
  }

  @Test func signedNrfutilPackageUpdatesASignatureCheckingTarget() async throws {
    var config = DFUTargetConfiguration()
    config.publicKey = try DFUTestPackages.publicKey()
    let host = DFUTargetHost(target: SimulatedDFUTarget(configuration: config))
    let package = try DFUTestPackages.fixture("app_signed.zip")
    try await transfer(host).run(package.transferImages)
    let target = await host.target
    #expect(target.configuration.applicationVersion == 3)  // fw_version of app_signed.zip
    #expect(target.activated.map(\.firmware) == [package.images[0].firmware])
    #expect(!target.inBootloader)
  }

  @Test func unsignedPackageIsRefusedByASignatureCheckingTarget() async throws {
    var config = DFUTargetConfiguration()
    config.publicKey = try DFUTestPackages.publicKey()
    let host = DFUTargetHost(target: SimulatedDFUTarget(configuration: config))
    await #expect(throws: DFUFailure.rejected(image: "application", request: 0x04, .extendedError, .signatureMissing)) {
      try await transfer(host).run(try DFUTestPackages.fixture("app_unsigned.zip").transferImages)
    }
    #expect(await host.target.configuration.applicationVersion == 1)
  }

  @Test func tenDisconnectsAtSeededRandomOffsetsEachResumeToACorrectImage() async throws {
    var rng = SeededGenerator(seed: 0x5EED)
    for round in 0..<10 {
      let image = DFUTestPackages.application(10000 + round * 1000, version: 7, seed: UInt64(round))
      let drop = Int(rng.next() % UInt64(image.firmware.count - 1)) + 1
      let host = DFUTargetHost(target: SimulatedDFUTarget(faults: DFUTargetFaults(dropLinkAtByte: drop)))
      let reconnects = try await transfer(host, prn: round.isMultiple(of: 2) ? 0 : 8).run([image]).reconnects
      let target = await host.target
      #expect(await host.linkDrops == 1, "round \(round), drop at \(drop)")
      #expect(reconnects == 1)
      #expect(target.activated.map(\.firmware) == [image.firmware], "round \(round), drop at \(drop)")
      #expect(target.configuration.applicationVersion == 7)
    }
  }

  @Test func corruptedPacketIsRetriedAndTheImageIsCorrect() async throws {
    let image = DFUTestPackages.application(9000)
    for prn: UInt16 in [0, 4] {
      let host = DFUTargetHost(target: SimulatedDFUTarget(faults: DFUTargetFaults(corruptByteAt: 5000)))
      try await transfer(host, prn: prn).run([image])
      #expect(await host.target.activated.map(\.firmware) == [image.firmware])
      #expect(await host.target.faults.corruptByteAt == nil)  // the fault really fired
    }
  }

  @Test func imageAlteredAfterTheInitPacketIsRefusedByTheTargetsFinalHash() async throws {
    var image = DFUTestPackages.application(5000)
    image.firmware[100] ^= 1  // the client is not asked to validate here: the target must catch it
    let host = DFUTargetHost(target: SimulatedDFUTarget())
    await #expect(throws: DFUFailure.rejected(image: "application", request: 0x04, .extendedError, .verificationFailed))
    {
      try await transfer(host).run([image])
    }
    #expect(await host.target.activated.isEmpty)
  }

  @Test func wrongHardwareVersionIsRefusedByTheTarget() async throws {
    let host = DFUTargetHost(target: SimulatedDFUTarget())
    await #expect(
      throws: DFUFailure.rejected(image: "application", request: 0x04, .extendedError, .hardwareVersionFailure)
    ) {
      try await transfer(host).run([DFUTestPackages.application(100, hardware: 51)])
    }
  }

  /// Marked `is_debug` or not: a release bootloader, as the devices this tool updates run, skips no check for it.
  @Test(arguments: [false, true]) func olderApplicationIsRefusedByTheTarget(debug: Bool) async throws {
    var config = DFUTargetConfiguration()
    config.applicationVersion = 9
    let host = DFUTargetHost(target: SimulatedDFUTarget(configuration: config))
    let firmware = DFUTestPackages.bytes(100, seed: 42)
    var command = DFUTestPackages.command(.application, firmware: firmware, version: 8)
    command.isDebug = debug
    let image = DFUTransferImage(name: "application", initPacket: InitPacket.serialize(command), firmware: firmware)
    await #expect(
      throws: DFUFailure.rejected(image: "application", request: 0x04, .extendedError, .firmwareVersionFailure)
    ) {
      try await transfer(host).run([image])
    }
    #expect(await host.target.activated.isEmpty)
  }

  @Test func softDeviceBootloaderThenApplicationInTwoConnections() async throws {
    let host = DFUTargetHost(target: SimulatedDFUTarget())
    let sdbl = DFUTestPackages.softDeviceBootloader()
    let app = DFUTestPackages.application(6000)
    try await transfer(host).run([sdbl, app])
    let target = await host.target
    #expect(target.activated.map(\.type) == [.softDeviceBootloader, .application])
    #expect(target.activated.map(\.firmware) == [sdbl.firmware, app.firmware])
    #expect(target.configuration.bootloaderVersion == 2)
    #expect(await host.connections == 2)
  }

  @Test func inactivityTimeoutReturnsToTheOldApplicationAndDropsProgress() async throws {
    let image = DFUTestPackages.application(9000)
    let host = DFUTargetHost(target: SimulatedDFUTarget(faults: DFUTargetFaults(dropLinkAtByte: 4500)))
    // no reconnects allowed: the transfer stops at the drop
    await #expect(throws: DFUFailure.self) { try await transfer(host, reconnects: 0).run([image]) }
    var target = await host.target
    #expect(target.inBootloader)
    target.inactivityElapsed()
    #expect(!target.inBootloader && target.configuration.applicationVersion == 1)
    target.enterBootloader()
    // progress is gone: Select data reports offset 0
    let select = target.handle(request: ControlPointRequest.select(.data).bytes)
    #expect(select == [.respond([0x60, 0x06, 0x01, 0x00, 0x10, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])])
  }
}

extension SimulatedDFUTransferTests {
  @Test func rerunningAnInterruptedMultiImagePackageSkipsTheAppliedSystemPart() async throws {
    let sdbl = DFUTestPackages.softDeviceBootloader()
    let app = DFUTestPackages.application(9000)
    // the first run is cut 4000 bytes into the application (SD+BL is 12288 bytes) with no reconnects
    let host = DFUTargetHost(target: SimulatedDFUTarget(faults: DFUTargetFaults(dropLinkAtByte: 12288 + 4000)))
    await #expect(throws: DFUFailure.self) { try await transfer(host, reconnects: 0).run([sdbl, app]) }
    #expect(await host.target.activated.map(\.type) == [.softDeviceBootloader])
    // the same package again: SD+BL is refused as not newer (0x0B 0x05) and skipped; the app resumes
    try await transfer(host).run([sdbl, app])
    let target = await host.target
    #expect(target.activated.map(\.type) == [.softDeviceBootloader, .application])
    #expect(target.activated.map(\.firmware) == [sdbl.firmware, app.firmware])
  }

  @Test func aRefusedSystemPartThatIsNotAVersionMatterStopsTheUpdate() async throws {
    var sdbl = DFUTestPackages.softDeviceBootloader()
    sdbl.initPacket = InitPacket.serialize(
      DFUTestPackages.command(.softDeviceBootloader, firmware: sdbl.firmware, version: 2, sdSize: 8192, hardware: 53))
    let host = DFUTargetHost(target: SimulatedDFUTarget())
    await #expect(
      throws: DFUFailure.rejected(
        image: "softdevice_bootloader", request: 0x04, .extendedError, .hardwareVersionFailure)
    ) {
      try await transfer(host).run([sdbl, DFUTestPackages.application(100)])
    }
    #expect(await host.target.activated.isEmpty)
  }
}

import Foundation
import NordicDFU
import NordicDFUIO
import Testing

@testable import Simulator

/// Our serial DFU client (tty, SLIP, engine) against the simulated bootloader served on a pseudo-terminal
/// (docs/protocols/nordic-dfu.md §4): the same path `beacon-provision dfu serial` takes with a real UART bootloader.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SerialDFUOverPTYTests {
  func serve(_ target: SimulatedDFUTarget) async throws -> (PseudoTerminal, SerialDFUTargetServer) {
    let pty = try PseudoTerminal()
    let server = SerialDFUTargetServer(target: target, channel: pty.deviceChannel())
    await server.start()
    return (pty, server)
  }

  @Test func clientUpdatesTheSimulatedTargetOverAPty() async throws {
    var config = DFUTargetConfiguration()
    config.publicKey = try DFUTestPackages.publicKey()
    let (pty, server) = try await serve(SimulatedDFUTarget(configuration: config))
    defer { Task { await server.stop() } }
    let package = try DFUTestPackages.fixture("app_signed.zip")
    // Nothing in this transfer is meant to time out: a generous response timeout, so a loaded machine never
    // turns a slow answer into a reconnect (which would send PRN a second time).
    let factory = SerialDFULinkFactory(path: pty.path, responseTimeout: .seconds(10))
    try await DFUTransfer(factory: factory, configuration: DFUEngineConfiguration(receiptInterval: 8)).run(
      package.transferImages)
    let target = await server.target
    #expect(target.activated.map(\.firmware) == [package.images[0].firmware])
    #expect(target.configuration.applicationVersion == 3)
    // the wire started like nrfutil's: ping (again if a busy machine made one time out), MTU, then PRN
    // and Select command — PRN once for the whole connection (nrfutil `open()` → `__set_prn`)
    let ops = await server.receivedOpCodes
    let afterPings = ops.drop { $0 == 0x09 }
    #expect(ops.first == 0x09 && Array(afterPings.prefix(3)) == [0x07, 0x02, 0x06])
    #expect(ops.filter { $0 == 0x02 }.count == 1)
  }

  @Test func linkDropOverThePtyResumesAndCompletes() async throws {
    let image = DFUTestPackages.application(9000)
    let (pty, server) = try await serve(SimulatedDFUTarget(faults: DFUTargetFaults(dropLinkAtByte: 6000)))
    defer { Task { await server.stop() } }
    // The drop shows as a response timeout; a busy machine may cost one more reconnect, never a wrong image.
    let factory = SerialDFULinkFactory(path: pty.path, responseTimeout: .seconds(1))
    let reconnects = try await DFUTransfer(factory: factory, configuration: DFUEngineConfiguration(receiptInterval: 0))
      .run([image]).reconnects
    #expect((1...2).contains(reconnects))
    #expect(await server.linkDrops == 1)
    #expect(await server.target.activated.map(\.firmware) == [image.firmware])
  }
}

extension SerialDFUOverPTYTests {
  @Test func idleBootloaderReturnsToTheOldApplication() async throws {
    var config = DFUTargetConfiguration()
    config.inactivityTimeout = .milliseconds(100)
    let image = DFUTestPackages.application(9000)
    let (pty, server) = try await serve(
      SimulatedDFUTarget(configuration: config, faults: DFUTargetFaults(dropLinkAtByte: 3000)))
    defer { Task { await server.stop() } }
    let factory = SerialDFULinkFactory(path: pty.path, responseTimeout: .milliseconds(50))
    await #expect(throws: DFUFailure.self) {
      try await DFUTransfer(
        factory: factory, configuration: DFUEngineConfiguration(receiptInterval: 0, maximumReconnectsWithoutProgress: 0)
      ).run([image])
    }
    // no traffic for longer than the timeout: back to application version 1, progress gone
    await server.waitUntilApplicationRuns()
    let target = await server.target
    #expect(!target.inBootloader && target.configuration.applicationVersion == 1 && target.activated.isEmpty)
  }
}

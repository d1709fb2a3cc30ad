import ArgumentParser
import BeaconCore
import Dispatch
import Foundation
import Simulator

/// `beacon-provision sim serve --adapter hci1 [--adapter hci2 …] [--fleet FILE] [--device ADDR …]`: serves
/// fleet devices over real controllers, one device per controller — HCI advertising plus an L2CAP ATT
/// listener answering with the device's GATT database (`ServedDevice`). This is what the VM tier's
/// scenarios scan and connect to (scripts/vm/scenarios, docs/protocols/vm-e2e.md). Each device takes its
/// controller's address; the lines printed say which device is which address. KBeacon kinds answer with
/// the simulated KBeacon (FEA0 protocol), others with GAP/GATT/Device Information — the same servers as
/// `--adapter sim`. A KBeacon told to enter its DFU bootloader (buttonless `01`, docs/protocols/nordic-dfu.md §2.2) drops
/// the link and becomes that bootloader on the same controller, at its address +1 as an LE random address,
/// until the update activates and it runs the new application at its own address again (`ServedRole`).
struct SimServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve simulated devices over real Bluetooth controllers (one device per controller).",
    discussion: """
      The i-th --adapter serves the i-th device: the devices named with --device, in that order, or else the \
      fleet's first devices. Each device advertises with its controller's public address (a device whose fleet \
      entry says \"addressType\": \"random\" with its own address, as an LE random address); a KBeacon told to \
      enter its DFU bootloader advertises that bootloader at the address +1 (LE random) until the update \
      activates. Runs until \
      --duration passes or SIGINT/SIGTERM. Start it after bluetoothd when bluetoothd runs: the last socket \
      to listen on a controller's ATT channel gets its links.

      \(ExitStatus.paragraph("0 served until --duration or SIGINT/SIGTERM; 1 an error (no such controller, a refused HCI command)"))
      """)

  @Option(
    name: .customLong("adapter"),
    help: ArgumentHelp("A controller to serve a device on (hci1, …); repeat for more.", valueName: "hciN"))
  var adapters: [String] = []

  @Option(help: ArgumentHelp("Fleet file (default: the built-in demo fleet).", valueName: "file"))
  var fleet: String?

  @Option(
    name: .customLong("device"),
    help: ArgumentHelp("Fleet address of a device to serve; repeat, in adapter order.", valueName: "address"))
  var devices: [String] = []

  @Option(help: ArgumentHelp("Stop after this many seconds (default: run until stopped).", valueName: "seconds"))
  var duration: Double?

  @Option(
    help: ArgumentHelp(
      "Re-announce connectable devices this often (btvirt reports advertisers only when advertising starts); default never, since a connect during the toggle fails.",
      valueName: "seconds"))
  var reannounceConnectable: Double?

  func validate() throws {
    guard !adapters.isEmpty else { throw ValidationError("name at least one --adapter (hci1, …)") }
    for a in adapters where !(a.hasPrefix("hci") && Int(a.dropFirst(3)) != nil) {
      throw ValidationError("'\(a)' is not a controller name (hci0, hci1, …)")
    }
    guard Set(adapters).count == adapters.count else {
      throw ValidationError("each --adapter serves one device; \(adapters) repeats one")
    }
    for d in devices where BluetoothAddress(d) == nil { throw ValidationError("'\(d)' is not a Bluetooth address") }
    if !devices.isEmpty && devices.count != adapters.count {
      throw ValidationError("give one --device per --adapter (\(devices.count) devices, \(adapters.count) adapters)")
    }
    try SecondsOption.validate(duration, "--duration")
    try SecondsOption.validate(reannounceConnectable, "--reannounce-connectable")
  }

  func run() async throws {
    let fleetValue = try CentralFactory.fleet(fleet)
    let assigned = try Self.assign(fleetValue, adapters: adapters, devices: devices.compactMap(BluetoothAddress.init))
    let reannounce = reannounceConnectable.map { SecondsOption.duration($0) }
    let served = try CentralFactory.servedDevices(assigned, connectableReannounce: reannounce)
    let stop = Self.stopSignals()
    let limit = duration
    do {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for device in served {
          group.addTask { try await device.run { event in SimServeOutput.line(event) } }
        }
        group.addTask { await stop.wait() }
        if let limit { group.addTask { try await Task.sleep(for: SecondsOption.duration(limit)) } }
        try await group.next()
        group.cancelAll()
        try await group.waitForAll()
      }
    } catch let error as CLIFailure {
      throw error
    } catch {
      throw liveFailure(error)
    }
    SimServeOutput.write("sim serve: stopped")
  }

  /// Pairs each adapter with its device: the named devices in order, or the fleet's first ones.
  static func assign(
    _ fleet: SimulatedFleet, adapters: [String], devices: [BluetoothAddress]
  ) throws -> [(adapter: String, device: SimulatedDevice)] {
    let chosen: [SimulatedDevice]
    if devices.isEmpty {
      guard fleet.devices.count >= adapters.count else {
        throw CLIFailure("the fleet has \(fleet.devices.count) device(s) for \(adapters.count) adapters")
      }
      chosen = Array(fleet.devices.prefix(adapters.count))
    } else {
      chosen = try devices.map { address in
        guard let d = fleet.devices.first(where: { $0.address == address }) else {
          throw CLIFailure("no device \(address) in the fleet")
        }
        return d
      }
    }
    return Array(zip(adapters, chosen)).map { (adapter: $0.0, device: $0.1) }
  }

  /// SIGINT and SIGTERM end serving (so advertising is switched off), instead of killing the process.
  static func stopSignals() -> StopSignal {
    let stop = StopSignal()
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      source.setEventHandler { stop.fire() }
      source.resume()
      stop.keep(source)
    }
    return stop
  }
}

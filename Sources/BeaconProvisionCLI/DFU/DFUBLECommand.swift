import ArgumentParser
import BeaconCore
import Foundation
import NordicDFU

/// `beacon-provision dfu ble --adapter hci0 --device ADDR --package FILE.zip`: Secure DFU over BLE
/// (docs/protocols/nordic-dfu.md §2): package validated first, then buttonless entry naming the bootloader, which is
/// connected to only where it advertises that name (address + 1 for an SDK 13 device, which cannot name
/// it), transfer with resume after drops. Run it again to resume an interrupted update.
struct DFUBLECommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ble",
    abstract: "Update one device over BLE (buttonless entry into its Secure DFU bootloader).",
    discussion: ExitStatus.paragraph(
      "0 updated; 1 an error (the package was refused, the device or the transfer failed)"))

  @OptionGroup var adapter: AdapterOptions

  @Option(help: ArgumentHelp("The device's address in application mode.", valueName: "address"))
  var device: String

  @OptionGroup var peer: PeerAddressOptions

  @Option(help: ArgumentHelp("The DFU package (.zip).", valueName: "zip"))
  var package: String

  @Option(help: "Packet receipt notification interval (0 = off; 12 is the mobile libraries' default).")
  var prn: UInt16 = 12

  @Option(
    name: .customLong("object-delay"), help: "Milliseconds to wait after creating each data object (KKM uses 300).")
  var objectDelay = 300

  @Option(help: "Seconds to wait for each response.")
  var timeout: Double = 10

  @OptionGroup var deviceFacts: DFUDeviceOptions

  func validate() throws {
    guard BluetoothAddress(device) != nil else {
      throw ValidationError("--device must be an address like C0:11:22:33:44:55")
    }
    try SecondsOption.validate(timeout, "--timeout")
    guard objectDelay >= 0 else { throw ValidationError("--object-delay must be ≥ 0") }
  }

  func run() async throws {
    try await run(central: try CentralFactory.make(adapter.adapter, scanBackend: peer.scanBackend.value))
  }

  /// The command with its `Central` given (tests pass a simulated one).
  func run(central: any Central) async throws {
    let pkg = try DFUPackage.load(path: package)
    let validator = PackageValidator(expectations: try deviceFacts.expectations(defaultHardwareVersion: 52))
    do {
      try validator.validate(pkg)
    } catch {
      throw CLIFailure("\(package) refused before connecting: \(error.description)")
    }
    let address = BluetoothAddress(device)!
    let responseTimeout = SecondsOption.duration(timeout)
    // Unheard, the device may already be in its bootloader: random, the type the bootloader uses (§2.2).
    let addressType = try await peer.resolve(address, on: central, unheard: .random)
    let factory = BLEDFULinkFactory(
      central: central, device: address, addressType: addressType,
      connectTimeout: responseTimeout, responseTimeout: responseTimeout)
    let transfer = DFUTransfer(
      factory: factory,
      configuration: DFUEngineConfiguration(receiptInterval: prn, dataObjectDelay: .milliseconds(objectDelay)),
      reconnectDelay: .milliseconds(500))
    let names = pkg.images.map(\.kind.rawValue)
    let progress = ProgressPrinter(names: names)
    let summary: DFUTransferSummary
    do {
      summary = try await transfer.run(pkg.transferImages) { progress.update(image: $0, confirmed: $1, total: $2) }
    } catch let failure as DFUFailure {
      throw CLIFailure("\(address): \(failure.description)")
    }
    let at = await factory.bootloaderAddress.map { " (bootloader at \($0))" } ?? ""
    print("Device \(address) programmed\(at): \(ProgressPrinter.outcome(summary, names: names)) from \(package)")
  }
}

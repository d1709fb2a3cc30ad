import ArgumentParser
import Foundation
import NordicDFU
import NordicDFUIO
import Synchronization

/// `beacon-provision dfu serial --port /dev/ttyACM0 --package FILE.zip`: Secure DFU over a UART bootloader
/// (docs/protocols/nordic-dfu.md §4). The package is fully validated before the port is opened; an interrupted run is
/// resumed by running the same command again (the bootloader keeps its progress, §2.5 step 10).
struct DFUSerialCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serial",
    abstract: "Update a device through its serial (UART) DFU bootloader.",
    discussion: ExitStatus.paragraph("0 updated; 1 an error (the package was refused, the port or the transfer failed)")
  )

  @Option(help: ArgumentHelp("The serial port of the bootloader.", valueName: "tty"))
  var port: String

  @Option(help: ArgumentHelp("The DFU package (.zip).", valueName: "zip"))
  var package: String

  @Option(help: "Baud rate.")
  var baud = 115_200

  @Flag(name: .customLong("flow-control"), help: "Use RTS/CTS hardware flow control.")
  var flowControl = false

  @Option(help: "Packet receipt notification interval (0 = off).")
  var prn: UInt16 = 0

  @Option(help: "Seconds to wait for each response.")
  var timeout: Double = 2

  @Option(
    name: .customLong("reconnect-delay"),
    help: "Seconds to wait before reopening the port between images or after a drop.")
  var reconnectDelay: Double = 1

  @Option(
    name: .customLong("ready-timeout"),
    help: "Seconds a reset bootloader may take to reappear and answer a ping (nrfutil 6.1.7 waits 30).")
  var readyTimeout: Double = 30

  @OptionGroup var device: DFUDeviceOptions

  func validate() throws {
    try SecondsOption.validate(timeout, "--timeout")
    try SecondsOption.validate(readyTimeout, "--ready-timeout")
    try SecondsOption.validate(reconnectDelay, "--reconnect-delay", zeroAllowed: true)
  }

  func run() async throws {
    print(try await perform())
  }

  /// Validates, transfers, and returns the closing line: what was sent and what the device already had.
  func perform() async throws -> String {
    // [I] Without --hw-version the nRF52 convention 52 is required: a package for other hardware must not
    // reach a device that cannot say its own hw_version over the wire.
    let validator = PackageValidator(expectations: try device.expectations(defaultHardwareVersion: 52))
    let pkg = try DFUPackage.load(path: package)
    do {
      try validator.validate(pkg)
    } catch {
      throw CLIFailure("\(package) refused before connecting: \(error.description)")
    }
    let factory = SerialDFULinkFactory(
      path: port, baudRate: baud, flowControl: flowControl, responseTimeout: SecondsOption.duration(timeout),
      readyTimeout: SecondsOption.duration(readyTimeout))
    let transfer = DFUTransfer(
      factory: factory, configuration: DFUEngineConfiguration(receiptInterval: prn),
      reconnectDelay: SecondsOption.duration(reconnectDelay))
    let names = pkg.images.map(\.kind.rawValue)
    let progress = ProgressPrinter(names: names)
    let summary: DFUTransferSummary
    do {
      summary = try await transfer.run(pkg.transferImages) { progress.update(image: $0, confirmed: $1, total: $2) }
    } catch let failure as DFUFailure {
      throw CLIFailure("\(port): \(failure.description)")
    }
    return "Device programmed: \(ProgressPrinter.outcome(summary, names: names)) from \(package)"
  }
}

/// Progress lines on standard error, at most one per 10 % per image (stdout stays clean).
final class ProgressPrinter: Sendable {
  private let names: [String]
  private let state = ProgressState()
  private let emit: @Sendable (String) -> Void
  init(names: [String], emit: @escaping @Sendable (String) -> Void = FileHandleOutput.standardError) {
    self.names = names
    self.emit = emit
  }

  func update(image: Int, confirmed: Int, total: Int) {
    guard image < names.count, total > 0 else { return }
    let tenth = confirmed * 10 / total
    if state.advance(image: image, tenth: tenth) {
      emit("\(names[image]): \(tenth * 10) % (\(confirmed)/\(total) bytes)")
    }
  }

  /// What went over the link and what the target already had, e.g. "application (softdevice_bootloader
  /// skipped: the device already has it)".
  static func outcome(_ summary: DFUTransferSummary, names: [String]) -> String {
    let sent = summary.sentImages.map { names[$0] }
    let skipped = summary.skippedImages.map { names[$0] }
    let text = sent.isEmpty ? "nothing sent" : sent.joined(separator: " + ")
    return skipped.isEmpty ? text : "\(text) (\(skipped.joined(separator: " + ")) skipped: the device already has it)"
  }
}

/// The last reported (image, tenth), shared with the progress callback.
final class ProgressState: Sendable {
  private let last = Mutex<(Int, Int)>((-1, -1))
  func advance(image: Int, tenth: Int) -> Bool {
    last.withLock { value in
      guard (image, tenth) != value, image > value.0 || tenth > value.1 else { return false }
      value = (image, tenth)
      return true
    }
  }
}

import ArgumentParser
import Foundation
import NordicDFU
import NordicDFUIO
import Simulator

/// `beacon-provision dfu simulate-serial`: serves the simulated SDK 15.3 serial DFU bootloader on a
/// pseudo-terminal until interrupted (docs/protocols/nordic-dfu.md §4, §5), for trying `dfu serial` or Nordic's
/// `nrfutil dfu serial -p <pty>` by hand.
struct DFUSimulateSerialCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate-serial",
    abstract: "Serve a simulated serial DFU bootloader on a pty (prints its path) until interrupted.",
    discussion: ExitStatus.paragraph("0 stopped by Ctrl-C or SIGTERM; 1 an error (no pty, a refused package)"))

  @Option(help: ArgumentHelp("Also make this symlink to the pty.", valueName: "path"))
  var link: String?

  @Option(
    name: .customLong("public-key"), help: ArgumentHelp("Require images signed by this key (PEM).", valueName: "pem"))
  var publicKey: String?

  @Option(name: .customLong("hw-version"), help: "The bootloader's hardware version.")
  var hardwareVersion: UInt32 = 52

  @Option(name: .customLong("softdevice-id"), help: ArgumentHelp("FWID of the installed SoftDevice.", valueName: "id"))
  var softDeviceID = "0x0101"

  @Option(name: .customLong("app-version"), help: "Version of the installed application.")
  var applicationVersion: UInt32 = 1

  @Option(name: .customLong("drop-at"), help: "Drop the link once, after this many firmware bytes.")
  var dropAt: Int?

  @Option(
    name: .customLong("corrupt-at"),
    help: "Flip one bit of the data write holding this firmware byte, once (its CRC then disagrees).")
  var corruptAt: Int?

  func validate() throws {
    guard DFUDeviceOptions.parseNumber(softDeviceID) != nil else {
      throw ValidationError("--softdevice-id must be a number like 0x0101")
    }
  }

  func run() async throws {
    var config = DFUTargetConfiguration()
    config.hardwareVersion = hardwareVersion
    config.softDeviceID = DFUDeviceOptions.parseNumber(softDeviceID)!
    config.applicationVersion = applicationVersion
    if let publicKey {
      do {
        config.publicKey = try DFUPublicKey(
          pem: String(decoding: try InputFile.read(publicKey, limit: .smallText), as: UTF8.self))
      } catch {
        throw CLIFailure("\(publicKey): not a readable PEM public key")
      }
    }
    let pty: PseudoTerminal
    do {
      pty = try PseudoTerminal()
    } catch {
      throw CLIFailure("cannot open a pseudo-terminal: \(error.description)")
    }
    if let link {
      try? FileManager.default.removeItem(atPath: link)
      do {
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.path)
      } catch {
        throw CLIFailure("cannot create the symlink \(link)")
      }
    }
    let server = SerialDFUTargetServer(
      target: SimulatedDFUTarget(
        configuration: config, faults: DFUTargetFaults(dropLinkAtByte: dropAt, corruptByteAt: corruptAt)),
      channel: pty.deviceChannel())
    await server.start()
    let banner =
      ("simulated serial DFU bootloader on \(pty.path)\(link.map { " (\($0))" } ?? "") — hw \(hardwareVersion), SoftDevice \(softDeviceID), app v\(applicationVersion)\(publicKey == nil ? "" : ", signed images only")\n"
        + "try: beacon-provision dfu serial --port \(link ?? pty.path) --package FILE.zip   (Ctrl-C to stop)\n")
    FileHandle.standardOutput.write(Data(banner.utf8))  // unbuffered: scripts wait for this line
    // Once it leaves the bootloader, say whether an image was activated (the fault matrix checks it).
    Task {
      await server.waitUntilApplicationRuns()
      let images = await server.target.activated.count
      FileHandle.standardOutput.write(
        Data("application running (\(images) image\(images == 1 ? "" : "s") activated)\n".utf8))
    }
    while !Task.isCancelled {
      try await Task.sleep(for: .seconds(3600))
    }
    withExtendedLifetime(pty) {}
  }
}

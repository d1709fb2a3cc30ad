import ArgumentParser
import Foundation
import NordicDFU
import NordicDFUIO

/// `beacon-provision dfu …`: Nordic Secure DFU packages and transfers (docs/protocols/nordic-dfu.md).
struct DFUCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dfu",
    abstract: "Inspect Nordic Secure DFU packages and update devices.",
    discussion: ExitStatus.group,
    subcommands: [
      DFUUpdateCommand.self, DFUInspectCommand.self, DFUSerialCommand.self, DFUBLECommand.self,
      DFUSimulateSerialCommand.self,
    ],
    defaultSubcommand: DFUUpdateCommand.self)
}

/// What the fleet's devices are, so packages can be checked before any connection (§1.4).
struct DFUDeviceOptions: ParsableArguments {
  @Option(
    name: .customLong("public-key"),
    help: ArgumentHelp("The bootloader's public key (PEM); images must be signed by it.", valueName: "pem"))
  var publicKey: String?

  @Option(name: .customLong("hw-version"), help: "The devices' DFU hardware version (nRF52 convention: 52).")
  var hardwareVersion: UInt32?

  @Option(
    name: .customLong("softdevice-id"),
    help: ArgumentHelp("FWID of the devices' SoftDevice, e.g. 0x0101.", valueName: "id"))
  var softDeviceID: String?

  @Option(
    name: .customLong("app-version"), help: "The devices' current application version (older images are refused).")
  var applicationVersion: UInt32?

  @Option(name: .customLong("bootloader-version"), help: "The devices' current bootloader version.")
  var bootloaderVersion: UInt32?

  @Flag(name: .customLong("require-signature"), help: "Refuse unsigned images even without a public key.")
  var requireSignature = false

  func validate() throws {
    if let softDeviceID, DFUDeviceOptions.parseNumber(softDeviceID) == nil {
      throw ValidationError("--softdevice-id must be a number like 0x0101 or 257")
    }
  }

  /// The expectations, with `defaultHardwareVersion` used when `--hw-version` is absent.
  func expectations(defaultHardwareVersion: UInt32? = nil) throws -> DeviceExpectations {
    var key: DFUPublicKey?
    if let publicKey {
      let pem: String
      do {
        pem = String(decoding: try InputFile.read(publicKey, limit: .smallText), as: UTF8.self)
      } catch {
        throw CLIFailure("--public-key: \(error)")
      }
      do {
        key = try DFUPublicKey(pem: pem)
      } catch {
        throw CLIFailure("\(publicKey): \(error.description)")
      }
    }
    return DeviceExpectations(
      hardwareVersion: hardwareVersion ?? defaultHardwareVersion, softDeviceID: softDeviceID.flatMap(Self.parseNumber),
      applicationVersion: applicationVersion, bootloaderVersion: bootloaderVersion, publicKey: key,
      requireSignature: requireSignature)
  }

  static func parseNumber(_ text: String) -> UInt32? {
    text.lowercased().hasPrefix("0x") ? UInt32(text.dropFirst(2), radix: 16) : UInt32(text)
  }
}

extension DFUPackage {
  /// Opens a package file for the CLI: every structural problem becomes one operator sentence.
  static func load(path: String) throws -> DFUPackage {
    do {
      return try read(path: path)
    } catch {
      throw CLIFailure("\(path): \(error.reason)")
    }
  }

  /// Opens a package file; a package that cannot be read at all is a `PackageRefusal` with the reason.
  static func read(path: String) throws(PackageRefusal) -> DFUPackage {
    guard FileManager.default.fileExists(atPath: path) else { throw PackageRefusal(reason: "no such file") }
    do {
      return try DFUPackage(archive: LibzipArchive(path: path))
    } catch {
      throw PackageRefusal(reason: error.description)
    }
  }
}

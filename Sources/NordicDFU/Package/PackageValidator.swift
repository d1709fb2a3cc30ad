/// The content checks of docs/protocols/nordic-dfu.md §1.4 items 4–6, mirroring what the SDK 15.3 target itself checks
/// (`nrf_dfu_ver_validation.c`, `nrf_dfu_validation.c`) so a bad package is refused before the first byte
/// goes out. Pure: takes a package and expectations, returns every check's outcome.
public struct PackageValidator: Sendable {
  public var expectations: DeviceExpectations

  public init(expectations: DeviceExpectations = DeviceExpectations()) { self.expectations = expectations }

  /// Every check on every image, in order. An image after a SoftDevice (or SoftDevice + bootloader) image
  /// is checked against the SoftDevice that image installs, not the devices' current one: the target
  /// checks `sd_req` when that image arrives, after the earlier ones were activated (§2.5 "Multi-part
  /// packages"; nrfutil gives the application `sd_req = --sd-id`, §1.3).
  public func checks(_ package: DFUPackage) -> [PackageCheck] {
    var softDevice = SoftDeviceOnTarget.devices(expectations.softDeviceID)
    var out: [PackageCheck] = []
    for (index, image) in package.images.enumerated() {
      out += checks(image, index: index, softDevice: softDevice)
      if image.kind == .softDevice || image.kind == .softDeviceBootloader {
        softDevice = .installed(byImage: index, id: SoftDeviceInfo.firmwareID(in: image.firmware))
      }
    }
    return out
  }

  /// Throws `PackageValidationError` listing every failed check.
  public func validate(_ package: DFUPackage) throws(PackageValidationError) {
    let failures = checks(package).filter { $0.outcome == .failed }
    guard failures.isEmpty else { throw PackageValidationError(failures: failures) }
  }

  func checks(_ image: DFUPackage.Image, index: Int, softDevice: SoftDeviceOnTarget) -> [PackageCheck] {
    let command = image.initPacket.initCommand
    var out: [PackageCheck] = []
    func add(_ name: String, _ outcome: PackageCheck.Outcome, _ detail: String) {
      out.append(PackageCheck(image: index, name: name, outcome: outcome, detail: detail))
    }

    let op = image.initPacket.opCode
    add(
      "op-code", op == InitPacket.initOpCode ? .passed : .failed,
      op == InitPacket.initOpCode ? "INIT" : "op_code is \(op.map(String.init) ?? "missing"), expected INIT (1)")

    let expectedType = image.kind.firmwareType
    if command.type == expectedType {
      add("type", .passed, expectedType.name)
    } else {
      add(
        "type", .failed,
        "init packet type \(command.type?.name ?? "missing") does not match manifest key \(image.kind.rawValue)")
    }

    out.append(sizeCheck(image, command).at(index))
    out.append(hashCheck(image, command).at(index))

    switch (expectations.hardwareVersion, command.hardwareVersion) {
    case (_, nil): add("hw-version", .failed, "init packet has no hw_version")
    case (nil, let v?): add("hw-version", .skipped, "package says \(v); device hardware version not given")
    case (let want?, let v?):
      add(
        "hw-version", v == want ? .passed : .failed,
        v == want ? "\(v)" : "package is for hardware \(v), devices are \(want)")
    }

    out.append(softDeviceCheck(image, command, softDevice).at(index))
    out.append(versionCheck(image, command).at(index))

    if image.kind == .bootloader || image.kind == .softDeviceBootloader {
      switch (expectations.maximumBootloaderSize, command.bootloaderSize) {
      case (let max?, let size?):
        add(
          "bl-size", size <= max ? .passed : .failed,
          size <= max ? "\(size) ≤ \(max)" : "bootloader is \(size) bytes, the device has room for \(max)")
      default: add("bl-size", .skipped, "device bootloader size not given")
      }
    }

    out.append(signatureCheck(image).at(index))
    return out
  }

}

/// The SoftDevice an image meets when it arrives: the devices' own (nil: not given), or the one an earlier
/// image of the package installs (nil: its information structure was not found).
enum SoftDeviceOnTarget: Equatable {
  case devices(UInt32?)
  case installed(byImage: Int, id: UInt32?)
}

extension PackageCheck {
  /// A check before it is attached to an image index.
  struct Partial {
    var name: String
    var outcome: Outcome
    var detail: String
    init(_ name: String, _ outcome: Outcome, _ detail: String) {
      self.name = name
      self.outcome = outcome
      self.detail = detail
    }
    func at(_ image: Int) -> PackageCheck { PackageCheck(image: image, name: name, outcome: outcome, detail: detail) }
  }
}

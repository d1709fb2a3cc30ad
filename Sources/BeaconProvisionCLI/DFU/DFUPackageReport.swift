import NordicDFU

/// What `dfu inspect` shows about a package (docs/protocols/nordic-dfu.md §1): every image's facts and every check.
/// Encodable for `--json`; `text` is the human rendering.
struct DFUPackageReport: Encodable, Equatable {
  struct Image: Encodable, Equatable {
    var index: Int
    var kind: String
    var type: String
    var binFile: String
    var binSize: Int
    var datFile: String
    var datSize: Int
    var firmwareVersion: UInt32?
    var hardwareVersion: UInt32?
    var softDeviceRequirements: [String]
    var softDeviceSize: UInt32?
    var bootloaderSize: UInt32?
    var applicationSize: UInt32?
    var hashType: String
    var hash: String
    var signatureType: String
    var signature: String?
    var bootValidation: [String]
    /// Each boot validation's bytes in hex as stored (for VALIDATE_ECDSA_P256_SHA256 the signature, r‖s
    /// little-endian, as `nrfutil pkg display` prints `boot_validation_signature`); "" when empty.
    var bootValidationSignature: [String]
    var isDebug: Bool?
  }

  var package: String
  var images: [Image]
  var checks: [PackageCheck]
  var valid: Bool
  /// Why the package could not even be read (legacy format, malformed init packet, bad zip …): set only
  /// for such refusals, which have no images and no checks.
  var reason: String?

  init(path: String, package: DFUPackage, checks: [PackageCheck]) {
    self.package = path
    self.checks = checks
    valid = !checks.contains { $0.outcome == .failed }
    images = package.images.enumerated().map { index, image in
      let c = image.initPacket.initCommand
      return Image(
        index: index, kind: image.kind.rawValue, type: c.type?.name ?? "missing", binFile: image.binFile,
        binSize: image.firmware.count, datFile: image.datFile, datSize: image.initPacketBytes.count,
        firmwareVersion: c.firmwareVersion, hardwareVersion: c.hardwareVersion,
        softDeviceRequirements: c.softDeviceRequirements.map { "0x" + String($0, radix: 16, uppercase: true) },
        softDeviceSize: c.softDeviceSize, bootloaderSize: c.bootloaderSize, applicationSize: c.applicationSize,
        hashType: c.hash?.typeName ?? "missing", hash: Self.hex(c.hash?.digest ?? []),
        signatureType: image.initPacket.signature?.typeName ?? "UNSIGNED",
        signature: image.initPacket.signature.map { Self.hex($0.bytes) },
        bootValidation: c.bootValidations.map(\.typeName),
        bootValidationSignature: c.bootValidations.map { Self.hex($0.bytes) },
        isDebug: c.isDebug)
    }
  }

  /// A package refused before any check: `reason` says why.
  init(path: String, refusal reason: String) {
    package = path
    images = []
    checks = []
    valid = false
    self.reason = reason
  }

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format2: $0) }.joined() }

  var text: String {
    var lines = ["DFU package \(package): \(images.count) image\(images.count == 1 ? "" : "s")"]
    func show(_ v: UInt32?) -> String { v.map { "\($0) (0x\(String($0, radix: 16, uppercase: true)))" } ?? "missing" }
    for i in images {
      lines.append("image #\(i.index): \(i.kind)")
      lines.append("  files        \(i.binFile) (\(i.binSize) bytes), \(i.datFile) (\(i.datSize) bytes)")
      lines.append("  type         \(i.type)")
      lines.append("  fw_version   \(show(i.firmwareVersion))")
      lines.append("  hw_version   \(show(i.hardwareVersion))")
      lines.append("  sd_req       \(i.softDeviceRequirements.joined(separator: ", "))")
      lines.append(
        "  sizes        sd \(i.softDeviceSize.map(String.init) ?? "-"), bl \(i.bootloaderSize.map(String.init) ?? "-"), app \(i.applicationSize.map(String.init) ?? "-")"
      )
      lines.append("  hash         \(i.hashType) \(i.hash) (little-endian)")
      lines.append("  signature    \(i.signatureType)\(i.signature.map { " \($0)" } ?? "")")
      let validations = zip(i.bootValidation, i.bootValidationSignature).map { $1.isEmpty ? $0 : "\($0) \($1)" }
      lines.append("  boot valid.  \(validations.joined(separator: ", "))")
      lines.append("  is_debug     \(i.isDebug.map(String.init) ?? "missing")")
    }
    lines.append("checks:")
    for c in checks {
      let mark =
        switch c.outcome {
        case .passed: "ok  "
        case .failed: "FAIL"
        case .skipped: "skip"
        }
      lines.append("  \(mark) image #\(c.image) \(c.name): \(c.detail)")
    }
    let failed = checks.filter { $0.outcome == .failed }.count
    lines.append(valid ? "package OK" : "package REFUSED: \(failed) check\(failed == 1 ? "" : "s") failed")
    return lines.joined(separator: "\n")
  }
}

extension String {
  /// Two lower-case hex digits.
  init(format2 byte: UInt8) {
    let digits = Array("0123456789abcdef")
    self = String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
  }
}

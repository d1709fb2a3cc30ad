/// The individual content checks of docs/protocols/nordic-dfu.md §1.4 item 4–5.
extension PackageValidator {
  /// Sizes: app_size for applications; sd_size + bl_size for SD+BL; each must equal the `.bin` length.
  func sizeCheck(_ image: DFUPackage.Image, _ c: InitCommand) -> PackageCheck.Partial {
    let length = UInt64(image.firmware.count)
    guard length > 0 else { return .init("size", .failed, "\(image.binFile) is empty") }
    let declared: UInt64?
    switch image.kind {
    case .application: declared = c.applicationSize.map(UInt64.init)
    case .softDevice: declared = c.softDeviceSize.map(UInt64.init)
    case .bootloader: declared = c.bootloaderSize.map(UInt64.init)
    case .softDeviceBootloader:
      if let sd = c.softDeviceSize, let bl = c.bootloaderSize {
        declared = UInt64(sd) + UInt64(bl)
      } else {
        declared = nil
      }
    }
    guard let declared else { return .init("size", .failed, "init packet has no size for the \(image.kind.rawValue)") }
    guard declared == length else {
      return .init("size", .failed, "init packet declares \(declared) bytes, \(image.binFile) has \(length)")
    }
    return .init("size", .passed, "\(length) bytes")
  }

  /// Hash: SHA-256 (the only type the SDK accepts) equal to the reversed SHA-256 of the `.bin` (§1.3).
  func hashCheck(_ image: DFUPackage.Image, _ c: InitCommand) -> PackageCheck.Partial {
    guard let hash = c.hash else { return .init("hash", .failed, "init packet has no hash") }
    guard hash.type == ImageHash.sha256Type else {
      return .init("hash", .failed, "hash type \(hash.typeName), the bootloader only accepts SHA256")
    }
    guard hash.digest == SHA256Digest.initPacketHash(of: image.firmware) else {
      return .init("hash", .failed, "SHA-256 of \(image.binFile) does not match the init packet (image altered?)")
    }
    return .init("hash", .passed, "SHA256 matches")
  }

  /// sd_req (SDK `sd_req_ok`): 0x00 first means "needs no SoftDevice" (applications only); otherwise the
  /// FWID of the SoftDevice present when the image arrives must be listed (0xFFFE = any, external
  /// applications only) — the devices' own, or the one an earlier image of the package installs.
  func softDeviceCheck(_ image: DFUPackage.Image, _ c: InitCommand, _ present: SoftDeviceOnTarget)
    -> PackageCheck.Partial
  {
    let list = c.softDeviceRequirements
    guard !list.isEmpty else { return .init("sd-req", .failed, "init packet has no sd_req") }
    let shown = list.map(Self.hexID).joined(separator: ", ")
    guard list.count <= 4 else {
      return .init("sd-req", .failed, "sd_req has \(list.count) entries, at most 4 allowed")
    }
    if list[0] == 0 {
      return image.kind == .application
        ? .init("sd-req", .passed, "0x00 (image needs no SoftDevice)")
        : .init("sd-req", .failed, "sd_req 0x00 is only allowed for applications")
    }
    switch present {
    case .devices(nil): return .init("sd-req", .skipped, "\(shown); device SoftDevice not given")
    case .devices(let id?):
      return list.contains(id)
        ? .init("sd-req", .passed, shown)
        : .init("sd-req", .failed, "package needs SoftDevice \(shown), devices have \(Self.hexID(id))")
    case .installed(let earlier, nil):
      return .init(
        "sd-req", .skipped, "\(shown); image #\(earlier) installs a SoftDevice whose FWID is not in its image")
    case .installed(let earlier, let id?):
      return list.contains(id)
        ? .init("sd-req", .passed, "\(shown) (installed by image #\(earlier))")
        : .init("sd-req", .failed, "package needs SoftDevice \(shown), image #\(earlier) installs \(Self.hexID(id))")
    }
  }

  static func hexID(_ id: UInt32) -> String { "0x" + String(id, radix: 16, uppercase: true) }

  /// fw_version (SDK `fw_version_ok`): applications ≥ current (equal accepted), bootloaders > current.
  func versionCheck(_ image: DFUPackage.Image, _ c: InitCommand) -> PackageCheck.Partial {
    guard let version = c.firmwareVersion else {
      return image.kind == .softDevice
        ? .init("fw-version", .passed, "not used for SoftDevice")
        : .init("fw-version", .failed, "init packet has no fw_version")
    }
    switch image.kind {
    case .application:
      guard let current = expectations.applicationVersion else {
        return .init("fw-version", .skipped, "\(version); device version not given")
      }
      return version >= current
        ? .init("fw-version", .passed, "\(version) ≥ \(current)")
        : .init("fw-version", .failed, "application \(version) is older than the device's \(current)")
    case .bootloader, .softDeviceBootloader:
      guard let current = expectations.bootloaderVersion else {
        return .init("fw-version", .skipped, "\(version); device bootloader version not given")
      }
      return version > current
        ? .init("fw-version", .passed, "\(version) > \(current)")
        : .init("fw-version", .failed, "bootloader \(version) is not newer than the device's \(current)")
    case .softDevice: return .init("fw-version", .passed, "not used for SoftDevice")
    }
  }

  /// Signature: present when required or when a key is given; verified against the key (§1.3).
  func signatureCheck(_ image: DFUPackage.Image) -> PackageCheck.Partial {
    guard let signature = image.initPacket.signature else {
      if expectations.publicKey != nil || expectations.requireSignature {
        return .init("signature", .failed, "the image is unsigned, the devices require a signature")
      }
      return .init("signature", .passed, "unsigned (devices do not require a signature)")
    }
    guard signature.type == 0 else {
      return .init(
        "signature", .failed, "signature type \(signature.typeName), the bootloader supports ECDSA_P256_SHA256")
    }
    guard let key = expectations.publicKey else {
      return .init("signature", .skipped, "ECDSA_P256_SHA256 present; no public key given to verify it")
    }
    do {
      return try key.verifies(signature.bytes, of: image.initPacket.initCommandBytes)
        ? .init("signature", .passed, "ECDSA_P256_SHA256 verified with the public key")
        : .init(
          "signature", .failed, "the signature does not verify with the public key (wrong key or altered init packet)")
    } catch {
      return .init("signature", .failed, error.description)
    }
  }
}

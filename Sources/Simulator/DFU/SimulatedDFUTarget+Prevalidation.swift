import NordicDFU

/// The target's own init-packet checks (SDK 15.3 `nrf_dfu_validation_prevalidate`,
/// `nrf_dfu_ver_validation.c`; docs/protocols/nordic-dfu.md §2.4 extended errors). Deliberately written from the
/// target's point of view, independent of the client's `PackageValidator`.
extension SimulatedDFUTarget {
  func prevalidate(_ packet: InitPacket) -> ControlPointResponse.Result? {
    let c = packet.initCommand
    func ext(_ e: DFUExtendedError) -> ControlPointResponse.Result { .failure(.extendedError, extended: e) }

    if let key = configuration.publicKey {
      guard let signature = packet.signature else { return ext(.signatureMissing) }
      guard signature.type == 0 else { return ext(.wrongSignatureType) }
      guard (try? key.verifies(signature.bytes, of: packet.initCommandBytes)) == true else {
        return .failure(.invalidObject, extended: nil)
      }
    }
    guard packet.opCode == InitPacket.initOpCode, let type = c.type, type != .unknown, c.hardwareVersion != nil,
      c.hash != nil
    else { return ext(.initCommandInvalid) }
    guard c.hash?.type == ImageHash.sha256Type else { return ext(.wrongHashType) }
    guard c.hardwareVersion == configuration.hardwareVersion else { return ext(.hardwareVersionFailure) }

    // sd_req_ok: 0x00 first = an application that needs no SoftDevice; 0xFFFE = any (external apps only).
    let sdReq = c.softDeviceRequirements
    let appNeedsNoSD = sdReq.first == 0 && type == .application
    let anyAccepted = type == .externalApplication && sdReq.contains(0xFFFE)
    guard appNeedsNoSD || anyAccepted || sdReq.contains(configuration.softDeviceID) else {
      return ext(.softDeviceVersionFailure)
    }

    // fw_version_ok: applications not older (equal accepted); bootloaders strictly newer. A release bootloader,
    // as the devices this tool updates run, checks whatever `is_debug` says (only debug builds skip).
    switch type {
    case .application, .externalApplication:
      if let current = configuration.applicationVersion, let v = c.firmwareVersion, v < current {
        return ext(.firmwareVersionFailure)
      }
    case .bootloader, .softDeviceBootloader:
      if let v = c.firmwareVersion, v <= configuration.bootloaderVersion {
        return ext(.firmwareVersionFailure)
      }
    default: break
    }

    let size = Self.updateSize(c)
    guard size > 0 else { return ext(.initCommandInvalid) }
    if type == .bootloader || type == .softDeviceBootloader {
      guard (c.bootloaderSize ?? 0) <= configuration.maximumBootloaderSize else { return ext(.insufficientSpace) }
    }
    guard size <= Int(configuration.availableSpace) else { return ext(.insufficientSpace) }
    return nil
  }
}

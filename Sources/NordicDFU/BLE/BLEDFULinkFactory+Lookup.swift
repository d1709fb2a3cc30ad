import BeaconCore

/// Finding the device's own bootloader after the jump (docs/protocols/nordic-dfu.md §2.2), by what `entry` says it may be.
extension BLEDFULinkFactory {
  /// Opens a link to the device's bootloader, and remembers where it answered:
  /// - `.named(name)`: the advertiser heard with exactly that name (scan), wherever it is;
  /// - `.unnamed`: address + 1 as a random address only (checked silent before the jump);
  /// - `.none`: address + 1 (the no-bond bootloader's address belongs to this device alone: the last octet
  ///   +1 without carry is one-to-one), then an advertiser with one of this device's names from any
  ///   attempt, or the name this factory was given.
  /// Never the device's own address: a bootloader there is the previous address's.
  func locate() async throws -> any DFULink {
    let plusOne = BootloaderLocator.candidates(for: device, type: addressType)[0]
    switch entry {
    case .named(let name):
      if let found = await scanForBootloader(where: { $0 == name }), let link = try? await bootloaderLink(at: found) {
        bootloader = found
        return link
      }
      throw DFUTransportError("bootloader of \(device) not heard advertising as \(name), the name it was given")
    case .unnamed:
      if let link = try? await bootloaderLink(at: plusOne) {
        bootloader = plusOne
        return link
      }
      throw DFUTransportError("bootloader of \(device) (which cannot name it: SDK 13) not found at \(plusOne)")
    case .none:
      if let link = try? await bootloaderLink(at: plusOne) {
        bootloader = plusOne
        return link
      }
      let (device, given) = (device, bootloaderName)
      if let found = await scanForBootloader(where: { $0 == given || BootloaderName.isName($0, of: device) }),
        let link = try? await bootloaderLink(at: found)
      {
        bootloader = found
        return link
      }
      throw DFUTransportError("bootloader of \(device) not found at \(plusOne) nor advertising as \(given)")
    }
  }

  /// Scans for an advertiser whose local name passes `accept`, for up to `scanTimeout`; it is connected
  /// to with the address type its advertisement carries.
  func scanForBootloader(where accept: @escaping @Sendable (String) -> Bool) async -> BootloaderLocator.Candidate? {
    await firstReport(within: scanTimeout) { report in
      guard let name = BootloaderLocator.localName(in: report.data), accept(name) else { return nil }
      return BootloaderLocator.Candidate(address: report.address, type: report.addressType)
    }
  }

  /// Whether a Secure DFU bootloader (an advertisement listing service FE59, §2.2) is heard at `address`
  /// within `silenceWindow` [I: 1 s by default, 40 of the SDK bootloader's 25 ms advertising intervals]. The
  /// window is measured on the reports' timestamps, so a simulated radio that runs faster than real time
  /// is listened to for that long in its own time.
  func heardBootloader(at address: BluetoothAddress) async -> Bool {
    let heard = await firstReport(within: silenceWindow + .seconds(1), reportTime: silenceWindow) { report in
      report.address == address && BootloaderLocator.advertisesDFUService(report.data) ? true : nil
    }
    return heard ?? false
  }

  /// The first non-nil `pick` of a report from an active scan; nil after `timeout` of real time or, when
  /// `reportTime` is given, once the reports' timestamps span that long.
  private func firstReport<T: Sendable>(
    within timeout: Duration, reportTime: Duration? = nil, _ pick: @escaping @Sendable (AdvertisingReport) -> T?
  ) async -> T? {
    let central = central
    return await withTaskGroup(of: T?.self) { group in
      group.addTask {
        var first: ContinuousClock.Instant?
        do {
          for try await report in central.scan(ScanParameters(active: true)) {
            if let value = pick(report) { return value }
            let start = first ?? report.timestamp
            first = start
            if let reportTime, report.timestamp - start >= reportTime { return nil }
          }
        } catch {}
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }
}

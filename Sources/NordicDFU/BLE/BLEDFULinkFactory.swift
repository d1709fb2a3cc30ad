import BeaconCore

/// Opens Secure DFU links to one device over a `Central` (nordic-dfu.md §2.2, §2.5): on first use it
/// connects to the device; if that is already a bootloader (Control Point present) it is used as is;
/// if it cannot be reached or does not answer GATT discovery (already in its bootloader, or a broken
/// application) it goes straight to the lookup below; otherwise the buttonless characteristic sets the
/// bootloader's name (`02`) and jumps (`01`). The
/// bootloader is then looked for at the address with the last octet +1 (as a random address), at the same
/// address, and by name in a scan (`BootloaderLocator.candidates`). Later opens (after a drop, or for the
/// next image) go straight to the address and type that worked.
public actor BLEDFULinkFactory: DFULinkFactory {
  public nonisolated let central: any Central
  public nonisolated let device: BluetoothAddress
  public nonisolated let addressType: AddressType
  public nonisolated let bootloaderName: String
  let connectTimeout: Duration
  let scanTimeout: Duration
  let responseTimeout: Duration
  let preferredMTU: Int
  /// Where the bootloader was last found, and its address type.
  public private(set) var bootloader: BootloaderLocator.Candidate?
  /// Where the bootloader was last found.
  public var bootloaderAddress: BluetoothAddress? { bootloader?.address }
  /// Whether this factory made the device jump (for reports).
  public private(set) var jumped = false

  public init(
    central: any Central, device: BluetoothAddress, addressType: AddressType = .random, bootloaderName: String? = nil,
    connectTimeout: Duration = .seconds(10), scanTimeout: Duration = .seconds(5), responseTimeout: Duration = .seconds(10),
    preferredMTU: Int = 247
  ) {
    self.central = central
    self.device = device
    self.addressType = addressType
    self.bootloaderName = bootloaderName ?? BootloaderLocator.bootloaderName(for: device)
    self.connectTimeout = connectTimeout
    self.scanTimeout = scanTimeout
    self.responseTimeout = responseTimeout
    self.preferredMTU = preferredMTU
  }

  public func open(image: Int) async throws -> any DFULink {
    if let known = bootloader, let link = try? await bootloaderLink(at: known) { return link }
    if !jumped, let link = try await enterBootloaderIfNeeded() { return link }
    let candidates = BootloaderLocator.candidates(for: device, type: addressType)
    for candidate in candidates {
      if let link = try? await bootloaderLink(at: candidate) {
        bootloader = candidate
        return link
      }
    }
    if let found = await scanForBootloader(), let link = try? await bootloaderLink(at: found) {
      bootloader = found
      return link
    }
    throw DFUTransportError(
      "bootloader of \(device) not found at \(candidates.map(\.description).joined(separator: " or ")) nor advertising as \(bootloaderName)")
  }

  /// Connects to `candidate` and opens the DFU link; fails if the device there is not a bootloader.
  func bootloaderLink(at candidate: BootloaderLocator.Candidate) async throws -> any DFULink {
    let bearer = try await central.connect(to: candidate.address, type: candidate.type, timeout: connectTimeout)
    let client = GATTClient(bearer: bearer, preferredMTU: preferredMTU, transactionTimeout: responseTimeout)
    do {
      return try await GATTDFULink.open(client: client, responseTimeout: responseTimeout)
    } catch {
      await client.close()
      throw error
    }
  }

  /// Connects to the device in application mode and jumps to the bootloader (§2.2). Returns a link when
  /// the device turns out to be a bootloader already (e.g. a resumed run), nil after a jump or when the
  /// application cannot be reached or does not answer GATT discovery (the caller then looks for the
  /// bootloader). The
  /// connection is closed on every path that does not hand it over to a link, errors included.
  func enterBootloaderIfNeeded() async throws -> (any DFULink)? {
    let bearer: any ATTBearer
    do {
      bearer = try await central.connect(to: device, type: addressType, timeout: connectTimeout)
    } catch {
      return nil  // not reachable as an application: perhaps already in the bootloader at another address
    }
    let client = GATTClient(bearer: bearer, preferredMTU: preferredMTU, transactionTimeout: responseTimeout)
    let inbox = MessageInbox<[UInt8]>()
    let database: GATTDatabase
    do {
      database = try await client.discover()
    } catch {
      // An application that does not answer discovery (broken, or the device reset into its bootloader
      // meanwhile) is what DFU must recover: fall through to the bootloader addresses (§2.2).
      await client.close()
      return nil
    }
    do {
      if database.characteristic(DFUGATT.controlPoint, inService: DFUGATT.service) != nil {
        let link = try await GATTDFULink.open(client: client, responseTimeout: responseTimeout)
        bootloader = BootloaderLocator.Candidate(address: device, type: addressType)
        return link
      }
      guard let buttonless = database.characteristic(DFUGATT.buttonlessWithoutBonds, inService: DFUGATT.service) else {
        throw DFUTransportError("\(device) has no Secure DFU service (no buttonless characteristic 8EC90003 and no control point)")
      }
      try await jump(client: client, buttonless: buttonless, inbox: inbox)
    } catch {
      await inbox.stop()
      await client.close()
      throw error
    }
    await inbox.stop()
    await client.close()
    jumped = true
    return nil
  }

  /// Names the bootloader (`02`) and makes the device jump (`01`) through its buttonless characteristic.
  private func jump(client: GATTClient, buttonless: GATTCharacteristic, inbox: MessageInbox<[UInt8]>) async throws {
    await inbox.start(try await client.subscribe(to: buttonless))
    try await client.write(ButtonlessRequest.setAdvertisingName(bootloaderName).bytes, to: buttonless.valueHandle)
    if let answer = await inbox.next(timeout: responseTimeout), let response = try? ButtonlessResponse(bytes: answer),
      response.status != .success, response.status != .opCodeNotSupported
    {
      throw DFUTransportError("\(device) refused the bootloader name (status 0x\(String(response.rawStatus, radix: 16)))")
    }
    // After 01 the device resets: a lost write response or indication is success (§2.2).
    try? await client.write(ButtonlessRequest.enterBootloader.bytes, to: buttonless.valueHandle)
    if let answer = await inbox.next(timeout: .milliseconds(500)), let response = try? ButtonlessResponse(bytes: answer),
      response.requestOpCode == 0x01, let status = response.status, status != .success
    {
      throw DFUTransportError("\(device) refused to enter the bootloader (status 0x\(String(response.rawStatus, radix: 16)))")
    }
  }

  /// Scans for an advertiser whose local name is the bootloader's (§2.2 last resort); it is connected to
  /// with the address type its advertisement carries.
  func scanForBootloader() async -> BootloaderLocator.Candidate? {
    let name = bootloaderName
    let central = central
    let timeout = scanTimeout
    return await withTaskGroup(of: BootloaderLocator.Candidate?.self) { group in
      group.addTask {
        do {
          for try await report in central.scan(ScanParameters(active: true)) {
            if BootloaderLocator.localName(in: report.data) == name {
              return BootloaderLocator.Candidate(address: report.address, type: report.addressType)
            }
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

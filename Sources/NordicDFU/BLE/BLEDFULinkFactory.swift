import BeaconCore

/// Opens Secure DFU links to one device over a `Central` (docs/protocols/nordic-dfu.md §2.2, §2.5), and only ever to
/// that device's own bootloader — devices of one batch have consecutive addresses, and a no-bond
/// bootloader comes up at the application's address + 1, which is the next device's address.
///
/// On first use it connects to the device's application and, through the buttonless characteristic, tells
/// the bootloader a name unique to this device and attempt (`02`, `BootloaderName`), then jumps (`01`) — unless
/// told the device is waiting in its bootloader already (`bootloaderWaiting`).
/// How the bootloader is then recognised (`Entry`, `locate()`):
/// - the device took the name: only a bootloader heard advertising that name, wherever it is heard;
/// - the device refused it ("op code not supported": an SDK 13 buttonless service): address + 1, after
///   checking before the jump that no bootloader advertised there (`heardBootloader(at:)`), so the one that
///   answers there afterwards is the one this jump started;
/// - no jump by this factory (the application is silent or is not an application — e.g. a resumed run
///   finds the device waiting in its bootloader): address + 1, then a bootloader advertising one of the
///   device's names from any attempt.
/// A bootloader answering at the device's own address is never taken as its own: there it is the previous
/// address's bootloader. Later opens (after a drop, or for the next image) go straight to the address and
/// type that worked. A campaign must also keep ±1 neighbours out of flight together (`Fleet`'s
/// `AddressNeighbourhood`): the bootloader still shares its address with the next device's application.
public actor BLEDFULinkFactory: DFULinkFactory {
  public nonisolated let central: any Central
  public nonisolated let device: BluetoothAddress
  public nonisolated let addressType: AddressType
  /// The name this attempt asks the bootloader to advertise.
  public nonisolated let bootloaderName: String
  /// The device was heard only as its bootloader, advertising a name of this tool's, and its application was
  /// not read: every open looks for that bootloader (as after no jump) and never connects to the application —
  /// silent, it would cost a whole connect timeout; back (the bootloader gave up since), it must be read before
  /// it is updated, which the caller's next attempt does. So an open that finds no bootloader fails.
  public nonisolated let bootloaderWaiting: Bool
  let connectTimeout: Duration
  let scanTimeout: Duration
  let responseTimeout: Duration
  let preferredMTU: Int
  /// How long to listen at address + 1 before a jump that could not name the bootloader.
  let silenceWindow: Duration
  /// Where the bootloader was last found, and its address type.
  public internal(set) var bootloader: BootloaderLocator.Candidate?
  /// Where the bootloader was last found.
  public var bootloaderAddress: BluetoothAddress? { bootloader?.address }
  /// How this factory put the device into its bootloader, which decides what it accepts as that bootloader.
  public private(set) var entry = Entry.none
  /// Whether this factory made the device jump (for reports).
  public var jumped: Bool { entry != .none }

  /// How the device entered its bootloader (docs/protocols/nordic-dfu.md §2.2).
  public enum Entry: Sendable, Equatable {
    /// Not by this factory: the bootloader may be running already.
    case none
    /// The device took the name `02` set, then jumped.
    case named(String)
    /// The device answered `02` "op code not supported" (SDK 13), then jumped: address + 1 only.
    case unnamed
  }

  public init(
    central: any Central, device: BluetoothAddress, addressType: AddressType = .random, bootloaderName: String? = nil,
    bootloaderWaiting: Bool = false, connectTimeout: Duration = .seconds(10), scanTimeout: Duration = .seconds(5),
    responseTimeout: Duration = .seconds(10),
    preferredMTU: Int = 247, silenceWindow: Duration = .seconds(1)
  ) {
    self.central = central
    self.device = device
    self.addressType = addressType
    self.bootloaderName = bootloaderName ?? BootloaderName.make(for: device, attempt: 1)
    self.bootloaderWaiting = bootloaderWaiting
    self.connectTimeout = connectTimeout
    self.scanTimeout = scanTimeout
    self.responseTimeout = responseTimeout
    self.preferredMTU = preferredMTU
    self.silenceWindow = silenceWindow
  }

  public func open(image: Int) async throws -> any DFULink {
    if let known = bootloader, let link = try? await bootloaderLink(at: known) { return link }
    // Only before any bootloader was found: once one was, the application answering again means that
    // bootloader ran the image and left (a link lost right after the last Execute), and a jump now would
    // send the whole image a second time. The lookup below then fails, and the visit's next attempt finds
    // the new version (`FirmwareWork.installedEarlier`).
    if entry == .none, bootloader == nil, !bootloaderWaiting { try await enterBootloaderIfNeeded() }
    return try await locate()
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

  /// Connects to the device in application mode, names its bootloader and makes it jump (§2.2), setting
  /// `entry`. Returns without a jump when the application cannot be reached, does not answer GATT
  /// discovery (already in its bootloader, or broken) or is a bootloader itself — at the device's own
  /// address that is the previous address's bootloader, not this device's. The connection is closed on
  /// every path, errors included.
  func enterBootloaderIfNeeded() async throws {
    let bearer: any ATTBearer
    do {
      bearer = try await central.connect(to: device, type: addressType, timeout: connectTimeout)
    } catch {
      return  // not reachable as an application: perhaps already in its bootloader at address + 1
    }
    let client = GATTClient(bearer: bearer, preferredMTU: preferredMTU, transactionTimeout: responseTimeout)
    let database: GATTDatabase
    do {
      database = try await client.discover()
    } catch {
      // An application that does not answer discovery (broken, or the device reset into its bootloader
      // meanwhile) is what DFU must recover: the lookup finds the bootloader (§2.2).
      await client.close()
      return
    }
    let inbox = MessageInbox<[UInt8]>()
    do {
      if let buttonless = database.characteristic(DFUGATT.buttonlessWithoutBonds, inService: DFUGATT.service) {
        entry = try await jump(client: client, buttonless: buttonless, inbox: inbox)
      } else if database.characteristic(DFUGATT.controlPoint, inService: DFUGATT.service) == nil {
        throw DFUTransportError(
          "\(device) has no Secure DFU service (no buttonless characteristic 8EC90003 and no control point)")
      }
    } catch {
      await inbox.stop()
      await client.close()
      throw error
    }
    await inbox.stop()
    // After the jump the application resets into its bootloader, ending the link itself.
    await (entry == .none ? client.close() : client.closeLeavingLink())
  }

  /// Names the bootloader (`02`) and makes the device jump (`01`) through its buttonless characteristic.
  /// A device that does not know `02` (SDK 13) jumps only once nothing advertises as a bootloader at its
  /// address + 1, where its own will come up.
  private func jump(client: GATTClient, buttonless: GATTCharacteristic, inbox: MessageInbox<[UInt8]>) async throws
    -> Entry
  {
    await inbox.start(try await client.subscribe(to: buttonless))
    try await client.write(ButtonlessRequest.setAdvertisingName(bootloaderName).bytes, to: buttonless.valueHandle)
    let entry: Entry
    switch await inbox.next(timeout: responseTimeout).flatMap({ try? ButtonlessResponse(bytes: $0) }) {
    case let response? where response.requestOpCode == 0x02 && response.status == .success:
      entry = .named(bootloaderName)
    case let response? where response.requestOpCode == 0x02 && response.status == .opCodeNotSupported:
      let plusOne = BootloaderLocator.candidates(for: device, type: addressType)[0].address
      if await heardBootloader(at: plusOne) {
        throw DFUTransportError(
          "\(device) cannot name its bootloader (SDK 13) and a bootloader already advertises at \(plusOne), where its own would come up: not entering it now"
        )
      }
      entry = .unnamed
    case let response?:
      throw DFUTransportError(
        "\(device) refused the bootloader name \(bootloaderName) (status 0x\(String(response.rawStatus, radix: 16)))")
    case nil:
      throw DFUTransportError("\(device) did not answer the bootloader name \(bootloaderName) (buttonless 02)")
    }
    // After 01 the device resets: a lost write response or indication is success (§2.2).
    try? await client.write(ButtonlessRequest.enterBootloader.bytes, to: buttonless.valueHandle)
    if let answer = await inbox.next(timeout: .milliseconds(500)),
      let response = try? ButtonlessResponse(bytes: answer),
      response.requestOpCode == 0x01, let status = response.status, status != .success
    {
      throw DFUTransportError(
        "\(device) refused to enter the bootloader (status 0x\(String(response.rawStatus, radix: 16)))")
    }
    return entry
  }
}

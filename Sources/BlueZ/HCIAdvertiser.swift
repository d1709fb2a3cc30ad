import BeaconCore

/// LE advertising on one adapter through raw HCI commands, for the simulator's server mode in the VM tier
/// (docs/protocols/simulator.md, The simulator). Legacy commands (Core Vol 4 Part E §7.8.5–§7.8.9), or one extended
/// advertising set carrying legacy PDUs (§7.8.53–§7.8.56) when the controller supports extended
/// advertising — the kernel then uses the extended commands itself and refuses mixing
/// (docs/protocols/linux-ble.md §4 item 2).
///
/// Choice [I]: raw HCI rather than mgmt Add Advertising, because raw HCI lets the tool send
/// ADV_NONCONN_IND with exact AD bytes (mgmt may add Flags/TX power and picks the address type itself).
/// bluetoothd does not advertise on its own, so this works whether or not it runs; if bluetoothd or the
/// kernel advertise on the same controller (a registered LE advertisement), commands fail with Command
/// Disallowed. `MgmtCommand.addAdvertising` exists for that case. After a connection on ADV_IND the
/// controller stops advertising; call `start` again to resume.
public final class HCIAdvertiser: Sendable {
  /// The advertising set used with extended commands [I: handle 1; the kernel's default instance is 0].
  public static let extendedHandle: UInt8 = 0x01

  public let adapter: Adapter
  private let socket: HCISocket
  private let extended: Bool

  /// Opens an HCI socket on `adapter` and reads which command set the controller speaks.
  public convenience init(adapter: Adapter) async throws {
    try await self.init(adapter: adapter, socket: try HCISocket(adapter: adapter))
  }

  /// Takes over an open socket (tests drive a fake controller through it).
  init(adapter: Adapter, socket: HCISocket) async throws {
    self.adapter = adapter
    self.socket = socket
    do {
      let supported = try LocalSupportedCommands(returnParameters: try await socket.run(.readLocalSupportedCommands))
      extended = supported.supportsExtendedAdvertising
    } catch {
      socket.close()
      throw error
    }
  }

  deinit { socket.close() }

  /// Whether the extended command set is in use.
  public var usesExtendedCommands: Bool { extended }

  /// The command sequence that (re)starts advertising with `settings` (advertising is off when it runs).
  /// A random own address is programmed where the spec allows it: LE Set Random Address only while
  /// advertising is disabled (§7.8.4: Command Disallowed otherwise, as btvirt's btdev also enforces), so
  /// first; LE Set Advertising Set Random Address only once the set exists (§7.8.52), so after its
  /// parameters.
  static func startCommands(_ settings: AdvertisingSettings, extended: Bool) -> [HCICommand] {
    if extended {
      let h = extendedHandle
      return [.leSetExtendedAdvertisingParameters(handle: h, settings)]
        + (settings.randomAddress.map { [.leSetAdvertisingSetRandomAddress(handle: h, $0)] } ?? [])
        + [
          .leSetExtendedAdvertisingData(handle: h, settings.advertisingData),
          .leSetExtendedScanResponseData(handle: h, settings.scanResponseData),
          .leSetExtendedAdvertisingEnable(true, handle: h),
        ]
    }
    return (settings.randomAddress.map { [.leSetRandomAddress($0)] } ?? []) + [
      .leSetAdvertisingParameters(settings), .leSetAdvertisingData(settings.advertisingData),
      .leSetScanResponseData(settings.scanResponseData), .leSetAdvertisingEnable(true),
    ]
  }

  /// Answers to the disable command that mean "was not advertising": Command Disallowed (some
  /// controllers, docs/protocols/linux-ble.md §4 item 2) and Unknown Advertising Identifier (extended: the set does not
  /// exist yet — seen on btvirt's Bluetooth 5 controllers).
  static let stopNoOps: Set<HCIStatus> = [.commandDisallowed, .unknownAdvertisingIdentifier]

  static func stopCommand(extended: Bool) -> HCICommand {
    extended ? .leSetExtendedAdvertisingEnable(false, handle: extendedHandle) : .leSetAdvertisingEnable(false)
  }

  /// Rejects data a legacy PDU cannot carry.
  static func validate(_ settings: AdvertisingSettings) throws {
    let limit = HCICommand.legacyAdvertisingDataLimit
    guard settings.advertisingData.count <= limit, settings.scanResponseData.count <= limit else {
      throw ControllerCommandError.invalidRequest(
        "advertising and scan response data are limited to \(limit) octets each (got \(settings.advertisingData.count) and \(settings.scanResponseData.count))"
      )
    }
    guard (0x0020...0x4000).contains(settings.interval) else {
      throw ControllerCommandError.invalidRequest("advertising interval must be 0x0020…0x4000 (20 ms … 10.24 s)")
    }
  }

  /// Stops any advertising, then programs and enables `settings`.
  public func start(_ settings: AdvertisingSettings) async throws {
    try Self.validate(settings)
    try await socket.run(Self.stopCommand(extended: extended), ignoring: Self.stopNoOps)
    for command in Self.startCommands(settings, extended: extended) { try await socket.run(command) }
  }

  /// Disables advertising; `stopNoOps` answers (already off) are not errors.
  public func stop() async throws {
    try await socket.run(Self.stopCommand(extended: extended), ignoring: Self.stopNoOps)
  }

  /// Closes the socket; advertising continues until `stop` or the adapter goes down.
  public func close() { socket.close() }
}

import BeaconCore

/// Secure DFU over GATT (docs/protocols/nordic-dfu.md §2.1, §2.5): requests are Write Requests on the Control Point
/// (8EC90001) answered by notifications; object data are Write Commands on the Packet characteristic
/// (8EC90002) in chunks of ATT_MTU − 3 (the engine keeps them a multiple of 4).
public actor GATTDFULink: DFULink {
  private let client: GATTClient
  private let controlPoint: GATTCharacteristic
  private let packet: GATTCharacteristic
  private let inbox = MessageInbox<[UInt8]>()
  private let responseTimeout: Duration
  public nonisolated let packetSize: Int

  /// Exchanges the MTU, finds the DFU service, and enables Control Point notifications (the bootloader
  /// refuses writes until the CCCD is set).
  public static func open(client: GATTClient, responseTimeout: Duration = .seconds(10)) async throws -> GATTDFULink {
    let mtu = try await client.exchangeMTU()
    let controlPoint = try await client.characteristic(DFUGATT.controlPoint, inService: DFUGATT.service)
    let packet = try await client.characteristic(DFUGATT.packet, inService: DFUGATT.service)
    let link = GATTDFULink(
      client: client, controlPoint: controlPoint, packet: packet, timeout: responseTimeout, packetSize: mtu - 3)
    try await link.subscribe()
    return link
  }

  private init(
    client: GATTClient, controlPoint: GATTCharacteristic, packet: GATTCharacteristic, timeout: Duration, packetSize: Int
  ) {
    self.client = client
    self.controlPoint = controlPoint
    self.packet = packet
    self.responseTimeout = timeout
    self.packetSize = packetSize
  }

  private func subscribe() async throws {
    let stream = try await client.subscribe(to: controlPoint)
    await inbox.start(stream)
  }

  public func request(_ request: ControlPointRequest) async throws -> ControlPointResponse {
    try await client.write(request.bytes, to: controlPoint.valueHandle)
    return try await notification()
  }

  public func writePacket(_ bytes: [UInt8]) async throws {
    try await client.writeWithoutResponse(bytes, to: packet.valueHandle)
  }

  public func receipt() async throws -> ControlPointResponse { try await notification() }

  private func notification() async throws -> ControlPointResponse {
    guard let value = await inbox.next(timeout: responseTimeout) else {
      throw DFUTransportError("no notification from the bootloader's control point")
    }
    return try ControlPointResponse(bytes: value)
  }

  /// Closes the bootloader link, leaving the link itself to the bootloader, which resets after activating an
  /// update (or after its inactivity timeout): both ends ending it at once confuses some controllers.
  public func close() async {
    await inbox.stop()
    await client.closeLeavingLink()
  }
}

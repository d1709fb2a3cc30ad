/// The serial (UART) `DFULink` (nordic-dfu.md §4): opens the channel, pings until the bootloader answers,
/// asks its MTU, then exchanges one SLIP frame per request/response; object data goes out as op 0x08.
public actor SerialDFULink: DFULink {
  private let channel: any ByteChannel
  private let responseTimeout: Duration
  public nonisolated let packetSize: Int

  /// Opens the link on an already-open channel: ping (up to `pingAttempts` tries), then Get MTU.
  public static func open(
    channel: any ByteChannel, responseTimeout: Duration = .seconds(2), pingAttempts: Int = 5, pingID: UInt8 = 1
  ) async throws -> SerialDFULink {
    let inbox = FrameInbox()
    await inbox.start(channel)
    var answered = false
    var id = pingID
    for _ in 0..<max(1, pingAttempts) where !answered {
      try await channel.write(SerialDFUFraming.frame(.ping(id: id)))
      while let frame = await inbox.next(timeout: responseTimeout) {
        if let r = try? ControlPointResponse(bytes: frame), r.requestOpCode == 0x09, r.result == .success(.ping(id)) {
          answered = true
          break
        }
      }
      id &+= 1
    }
    guard answered else {
      await inbox.stop()
      await channel.close()
      throw DFUTransportError("the bootloader does not answer pings on the serial port")
    }
    try await channel.write(SerialDFUFraming.frame(.getMTU))
    guard let frame = await inbox.next(timeout: responseTimeout),
      let response = try? ControlPointResponse(bytes: frame), case .success(.mtu(let mtu)) = response.result
    else {
      await inbox.stop()
      await channel.close()
      throw DFUTransportError("the bootloader did not report its MTU")
    }
    let size = SerialDFUFraming.dataBytesPerWrite(mtu: mtu)
    return SerialDFULink(channel: channel, inbox: inbox, responseTimeout: responseTimeout, packetSize: size)
  }

  private init(channel: any ByteChannel, inbox: FrameInbox, responseTimeout: Duration, packetSize: Int) {
    self.channel = channel
    self.responseTimeout = responseTimeout
    self.packetSize = packetSize
    self.inboxStorage = inbox
  }

  private let inboxStorage: FrameInbox

  public func request(_ request: ControlPointRequest) async throws -> ControlPointResponse {
    try await channel.write(SerialDFUFraming.frame(request))
    return try await response()
  }

  public func writePacket(_ bytes: [UInt8]) async throws {
    try await channel.write(SerialDFUFraming.frame(.write(bytes)))
  }

  public func receipt() async throws -> ControlPointResponse { try await response() }

  private func response() async throws -> ControlPointResponse {
    guard let frame = await inboxStorage.next(timeout: responseTimeout) else {
      throw DFUTransportError("no response from the bootloader")
    }
    return try ControlPointResponse(bytes: frame)
  }

  public func close() async {
    await inboxStorage.stop()
    await channel.close()
  }
}

/// Opens the serial port afresh for every connection (nrfutil closes and reopens it between images, §4).
public struct SerialDFULinkFactory: DFULinkFactory {
  public var path: String
  public var baudRate: Int
  public var flowControl: Bool
  public var responseTimeout: Duration

  public init(path: String, baudRate: Int = 115_200, flowControl: Bool = false, responseTimeout: Duration = .seconds(2)) {
    self.path = path
    self.baudRate = baudRate
    self.flowControl = flowControl
    self.responseTimeout = responseTimeout
  }

  public func open(image: Int) async throws -> any DFULink {
    let channel = try SerialPort.open(path: path, baudRate: baudRate, flowControl: flowControl)
    return try await SerialDFULink.open(channel: channel, responseTimeout: responseTimeout)
  }
}

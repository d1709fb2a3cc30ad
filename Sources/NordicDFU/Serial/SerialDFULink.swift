import BeaconCore

/// The serial (UART) `DFULink` (docs/protocols/nordic-dfu.md §4): opens the channel, pings until the bootloader answers,
/// asks its MTU, then exchanges one SLIP frame per request/response; object data goes out as op 0x08.
public actor SerialDFULink: DFULink {
  private let channel: any ByteChannel
  private let responseTimeout: Duration
  public nonisolated let packetSize: Int

  /// Opens the link on an already-open channel: pings until the bootloader answers — each ping waits
  /// `responseTimeout`, and pinging goes on until `readyTimeout` has passed (at least one ping; nrfutil
  /// 6.1.7 `DfuTransportSerial.open` pings for its whole `timeout`) — then asks the MTU.
  public static func open(
    channel: any ByteChannel, responseTimeout: Duration = .seconds(2), readyTimeout: Duration = .seconds(30),
    pingID: UInt8 = 1
  ) async throws -> SerialDFULink {
    let inbox = MessageInbox<[UInt8]>()
    await inbox.start(SLIPDecoder.frames(of: channel.incoming))
    let clock = ContinuousClock()
    let deadline = clock.now + readyTimeout
    do {
      var answered = false
      var heardAnything = false
      var (id, pings) = (pingID, 0)
      repeat {
        try await channel.write(SerialDFUFraming.frame(.ping(id: id)))
        pings += 1
        while let frame = await inbox.next(timeout: responseTimeout) {
          heardAnything = true
          if let r = try? ControlPointResponse(bytes: frame), r.requestOpCode == 0x09, r.result == .success(.ping(id)) {
            answered = true
            break
          }
        }
        id &+= 1
      } while !answered && clock.now < deadline
      guard answered else {
        if !heardAnything { throw SerialPortSilent(pings: pings, waited: readyTimeout) }
        throw DFUTransportError("the bootloader does not answer pings on the serial port")
      }
      try await channel.write(SerialDFUFraming.frame(.getMTU))
      guard let frame = await inbox.next(timeout: responseTimeout),
        let response = try? ControlPointResponse(bytes: frame), case .success(.mtu(let mtu)) = response.result
      else { throw DFUTransportError("the bootloader did not report its MTU") }
      let size = SerialDFUFraming.dataBytesPerWrite(mtu: mtu)
      return SerialDFULink(channel: channel, inbox: inbox, responseTimeout: responseTimeout, packetSize: size)
    } catch {
      await inbox.stop()
      await channel.close()
      throw error
    }
  }

  private init(channel: any ByteChannel, inbox: MessageInbox<[UInt8]>, responseTimeout: Duration, packetSize: Int) {
    self.channel = channel
    self.responseTimeout = responseTimeout
    self.packetSize = packetSize
    self.inboxStorage = inbox
  }

  private let inboxStorage: MessageInbox<[UInt8]>

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

/// No frame at all came back to any ping while a serial link opened (docs/protocols/nordic-dfu.md §4: a bootloader answers
/// a ping at once): nothing that speaks SLIP is on the port — not in its bootloader, another baud rate, or
/// another port. A first open reports it at once (`SerialDFULinkFactory`) instead of counting it as a lost
/// link to retry.
public struct SerialPortSilent: Error, Sendable, Hashable, CustomStringConvertible {
  public var pings: Int
  public var waited: Duration
  public var description: String {
    "no answer to \(pings) ping\(pings == 1 ? "" : "s") in \(waited.components.seconds) s"
  }
}

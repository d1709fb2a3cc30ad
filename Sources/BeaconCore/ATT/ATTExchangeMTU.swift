/// Exchange MTU Request, opcode 0x02 (Core v5.4 Vol 3 Part F §3.4.2.1): `02 | Client Rx MTU (2, LE)`.
public struct ATTExchangeMTURequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.exchangeMTURequest
  /// The largest ATT PDU the client can receive.
  public var clientRxMTU: UInt16

  public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    clientRxMTU = try r.u16()
    try r.finish()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(clientRxMTU)
  }
}

/// Exchange MTU Response, opcode 0x03 (§3.4.2.2): `03 | Server Rx MTU (2, LE)`. Both sides then use
/// min(Client Rx MTU, Server Rx MTU), never below 23 (§3.4.2.2).
public struct ATTExchangeMTUResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.exchangeMTUResponse
  public var serverRxMTU: UInt16

  public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    serverRxMTU = try r.u16()
    try r.finish()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(serverRxMTU)
  }
}

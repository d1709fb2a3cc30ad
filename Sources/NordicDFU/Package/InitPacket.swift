import BeaconCore

/// A Secure DFU init packet, the `.dat` file: protobuf `dfu.Packet` (docs/protocols/nordic-dfu.md §1.3). Exactly one of
/// `command` (field 1, unsigned) and `signed_command` (field 2) is present, as the SDK 15.3 target
/// requires (`stored_init_cmd_decode`). The serialised `InitCommand` bytes are kept verbatim because the
/// signature covers exactly those bytes.
public struct InitPacket: Equatable, Sendable {
  /// `Command.op_code`: RESET 0 (nrfutil's proto only), INIT 1.
  public var opCode: UInt32?
  public var initCommand: InitCommand
  /// The bytes of `command.init` exactly as they appear in the file (what the signature covers).
  public var initCommandBytes: [UInt8]
  public var signature: Signature?

  /// `SignedCommand.signature_type` + `signature` (r‖s, each 32-byte half little-endian, §1.3).
  public struct Signature: Equatable, Sendable {
    /// ECDSA_P256_SHA256 0, ED25519 1.
    public var type: UInt32?
    public var bytes: [UInt8]

    public var typeName: String {
      switch type {
      case 0: "ECDSA_P256_SHA256"
      case 1: "ED25519"
      case let t?: "unknown(\(t))"
      case nil: "missing"
      }
    }
  }

  public static let initOpCode: UInt32 = 1
  /// INIT_COMMAND_MAX_SIZE on SDK 15.3 (§1.3, §1.4 item 3).
  public static let maximumSize = 512

  /// Decodes a `.dat`. A first byte other than 0x0A/0x12 means it is not a Secure init packet (§1.2).
  public init(decoding bytes: [UInt8]) throws(InitPacketError) {
    guard let first = bytes.first else { throw .empty }
    guard first == 0x0A || first == 0x12 else { throw .notSecureInitPacket(firstByte: first) }
    do {
      var reader = ProtobufReader(bytes)
      var command: [UInt8]?
      var signed: [UInt8]?
      while let (number, value) = try reader.next() {
        switch number {
        case 1: command = try value.bytes(field: 1)
        case 2: signed = try value.bytes(field: 2)
        default: continue
        }
      }
      switch (command, signed) {
      case (let c?, nil):
        (opCode, initCommandBytes) = try Self.decodeCommand(c)
        signature = nil
      case (nil, let s?):
        var inner = ProtobufReader(s)
        var innerCommand: [UInt8]?
        var sig = Signature(type: nil, bytes: [])
        while let (number, value) = try inner.next() {
          switch number {
          case 1: innerCommand = try value.bytes(field: 1)
          case 2: sig.type = try value.uint32(field: 2)
          case 3: sig.bytes = try value.bytes(field: 3)
          default: continue
          }
        }
        guard let innerCommand else { throw InitPacketError.missingCommand }
        (opCode, initCommandBytes) = try Self.decodeCommand(innerCommand)
        signature = sig
      case (nil, nil): throw InitPacketError.missingCommand
      case (.some, .some): throw InitPacketError.bothCommandAndSignedCommand
      }
      initCommand = try InitCommand(decoding: initCommandBytes)
    } catch let error as ProtobufError {
      throw .malformed(error)
    } catch let error as InitPacketError {
      throw error
    } catch {
      throw .missingCommand  // unreachable: only the two error types above are thrown
    }
  }

  private static func decodeCommand(_ bytes: [UInt8]) throws -> (UInt32?, [UInt8]) {
    var reader = ProtobufReader(bytes)
    var op: UInt32?
    var initBytes: [UInt8]?
    while let (number, value) = try reader.next() {
      switch number {
      case 1: op = try value.uint32(field: 1)
      case 2: initBytes = try value.bytes(field: 2)
      default: continue
      }
    }
    guard let initBytes else { throw InitPacketError.missingInitCommand }
    return (op, initBytes)
  }

  /// Builds a packet the way nrfutil does: `Packet{command{op_code INIT, init}}`, or the signed form with
  /// `signature_type` 0 when a signature is given.
  public static func serialize(_ command: InitCommand, signature: [UInt8]? = nil) -> [UInt8] {
    var cmd = ProtobufWriter()
    cmd.varint(1, UInt64(initOpCode))
    cmd.bytes(2, command.serialized())
    var packet = ProtobufWriter()
    if let signature {
      var signed = ProtobufWriter()
      signed.bytes(1, cmd.bytes)
      signed.varint(2, 0)
      signed.bytes(3, signature)
      packet.bytes(2, signed.bytes)
    } else {
      packet.bytes(1, cmd.bytes)
    }
    return packet.bytes
  }
}

/// Why a `.dat` is not a usable Secure init packet.
public enum InitPacketError: Error, Equatable, Sendable, CustomStringConvertible {
  case empty
  case notSecureInitPacket(firstByte: UInt8)
  case malformed(ProtobufError)
  case missingCommand
  case bothCommandAndSignedCommand
  case missingInitCommand

  public var description: String {
    switch self {
    case .empty: "the init packet is malformed: it is empty"
    case .notSecureInitPacket(let b):
      "the init packet is malformed: not a Secure DFU protobuf (first byte 0x\(Hex.encode([b])), expected 0x0a or 0x12)"
    case .malformed(let e): "the init packet is malformed: not valid protobuf (\(e))"
    case .missingCommand: "the init packet is malformed: it has no command"
    case .bothCommandAndSignedCommand: "the init packet is malformed: it has both a command and a signed command"
    case .missingInitCommand: "the init packet is malformed: its command has no InitCommand"
    }
  }
}

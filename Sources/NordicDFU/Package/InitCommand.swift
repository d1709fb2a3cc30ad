/// `dfu.InitCommand` (docs/protocols/nordic-dfu.md §1.3): what an image is, what it needs, and its hash. Absent optional
/// fields stay nil so validation can tell "missing" from "zero".
public struct InitCommand: Equatable, Sendable {
  public var firmwareVersion: UInt32?
  public var hardwareVersion: UInt32?
  public var softDeviceRequirements: [UInt32] = []
  public var type: FirmwareType?
  public var softDeviceSize: UInt32?
  public var bootloaderSize: UInt32?
  public var applicationSize: UInt32?
  public var hash: ImageHash?
  public var isDebug: Bool?
  public var bootValidations: [BootValidation] = []

  public init(
    firmwareVersion: UInt32? = nil, hardwareVersion: UInt32? = nil, softDeviceRequirements: [UInt32] = [],
    type: FirmwareType? = nil, softDeviceSize: UInt32? = nil, bootloaderSize: UInt32? = nil,
    applicationSize: UInt32? = nil, hash: ImageHash? = nil, isDebug: Bool? = nil,
    bootValidations: [BootValidation] = []
  ) {
    self.firmwareVersion = firmwareVersion
    self.hardwareVersion = hardwareVersion
    self.softDeviceRequirements = softDeviceRequirements
    self.type = type
    self.softDeviceSize = softDeviceSize
    self.bootloaderSize = bootloaderSize
    self.applicationSize = applicationSize
    self.hash = hash
    self.isDebug = isDebug
    self.bootValidations = bootValidations
  }

  /// Decodes the serialised message. Unknown fields are skipped (proto2 rule).
  public init(decoding bytes: [UInt8]) throws(ProtobufError) {
    var reader = ProtobufReader(bytes)
    while let (number, value) = try reader.next() {
      switch number {
      case 1: firmwareVersion = try value.uint32(field: number)
      case 2: hardwareVersion = try value.uint32(field: number)
      case 3: softDeviceRequirements += try value.packedUInt32s(field: number)
      case 4: type = FirmwareType(rawValue: try value.uint32(field: number)) ?? .unknown
      case 5: softDeviceSize = try value.uint32(field: number)
      case 6: bootloaderSize = try value.uint32(field: number)
      case 7: applicationSize = try value.uint32(field: number)
      case 8: hash = try ImageHash(decoding: try value.bytes(field: number))
      case 9: isDebug = try value.uint32(field: number) != 0
      case 10: bootValidations.append(try BootValidation(decoding: try value.bytes(field: number)))
      default: continue
      }
    }
  }

  /// Serialises every present field in field-number order, as nrfutil does (§1.3 conventions).
  public func serialized() -> [UInt8] {
    var w = ProtobufWriter()
    if let firmwareVersion { w.varint(1, UInt64(firmwareVersion)) }
    if let hardwareVersion { w.varint(2, UInt64(hardwareVersion)) }
    if !softDeviceRequirements.isEmpty { w.packed(3, softDeviceRequirements) }
    if let type { w.varint(4, UInt64(type.rawValue)) }
    if let softDeviceSize { w.varint(5, UInt64(softDeviceSize)) }
    if let bootloaderSize { w.varint(6, UInt64(bootloaderSize)) }
    if let applicationSize { w.varint(7, UInt64(applicationSize)) }
    if let hash { w.bytes(8, hash.serialized()) }
    if let isDebug { w.varint(9, isDebug ? 1 : 0) }
    for v in bootValidations { w.bytes(10, v.serialized()) }
    return w.bytes
  }
}

/// `dfu.FwType` (§1.3). `unknown` stands for any value the schema does not name.
public enum FirmwareType: UInt32, Sendable, CaseIterable, Codable {
  case application = 0
  case softDevice = 1
  case bootloader = 2
  case softDeviceBootloader = 3
  case externalApplication = 4
  case unknown = 0xFFFF_FFFF

  public var name: String {
    switch self {
    case .application: "APPLICATION"
    case .softDevice: "SOFTDEVICE"
    case .bootloader: "BOOTLOADER"
    case .softDeviceBootloader: "SOFTDEVICE_BOOTLOADER"
    case .externalApplication: "EXTERNAL_APPLICATION"
    case .unknown: "UNKNOWN"
    }
  }
}

/// `dfu.Hash` (§1.3): the type and the stored digest (for SHA-256 the digest is byte-reversed).
public struct ImageHash: Equatable, Sendable {
  /// NO_HASH 0, CRC 1, SHA128 2, SHA256 3, SHA512 4.
  public var type: UInt32?
  public var digest: [UInt8]

  public static let sha256Type: UInt32 = 3

  public init(type: UInt32?, digest: [UInt8]) {
    self.type = type
    self.digest = digest
  }

  init(decoding bytes: [UInt8]) throws(ProtobufError) {
    var reader = ProtobufReader(bytes)
    var type: UInt32?
    var digest: [UInt8] = []
    while let (number, value) = try reader.next() {
      switch number {
      case 1: type = try value.uint32(field: number)
      case 2: digest = try value.bytes(field: number)
      default: continue
      }
    }
    self.init(type: type, digest: digest)
  }

  func serialized() -> [UInt8] {
    var w = ProtobufWriter()
    if let type { w.varint(1, UInt64(type)) }
    w.bytes(2, digest)
    return w.bytes
  }

  public var typeName: String {
    switch type {
    case 0: "NO_HASH"
    case 1: "CRC"
    case 2: "SHA128"
    case 3: "SHA256"
    case 4: "SHA512"
    case let t?: "unknown(\(t))"
    case nil: "missing"
    }
  }
}

/// `dfu.BootValidation` (§1.3): how the bootloader checks the image at every boot.
public struct BootValidation: Equatable, Sendable {
  /// NO_VALIDATION 0, VALIDATE_GENERATED_CRC 1, VALIDATE_SHA256 2, VALIDATE_ECDSA_P256_SHA256 3.
  public var type: UInt32
  public var bytes: [UInt8]

  public init(type: UInt32, bytes: [UInt8]) {
    self.type = type
    self.bytes = bytes
  }

  init(decoding data: [UInt8]) throws(ProtobufError) {
    var reader = ProtobufReader(data)
    var type: UInt32 = 0
    var bytes: [UInt8] = []
    while let (number, value) = try reader.next() {
      switch number {
      case 1: type = try value.uint32(field: number)
      case 2: bytes = try value.bytes(field: number)
      default: continue
      }
    }
    self.init(type: type, bytes: bytes)
  }

  func serialized() -> [UInt8] {
    var w = ProtobufWriter()
    w.varint(1, UInt64(type))
    w.bytes(2, bytes)
    return w.bytes
  }

  public var typeName: String {
    switch type {
    case 0: "NO_VALIDATION"
    case 1: "VALIDATE_GENERATED_CRC"
    case 2: "VALIDATE_SHA256"
    case 3: "VALIDATE_ECDSA_P256_SHA256"
    default: "unknown(\(type))"
    }
  }
}

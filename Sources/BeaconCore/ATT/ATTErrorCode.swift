/// An ATT error code as carried in an Error Response (Core v5.4 Vol 3 Part F §3.4.1.1, Table 3.4, plus the
/// Common Profile and Service Error Codes of the Core Specification Supplement Part B §1.2). Kept as a raw
/// byte so that application errors (0x80–0x9F) and codes from later spec versions survive decoding.
public struct ATTErrorCode: RawRepresentable, Error, Sendable, Hashable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public init(_ rawValue: UInt8) { self.rawValue = rawValue }

  /// The attribute handle given was not valid on this server.
  public static let invalidHandle = Self(0x01)
  /// The attribute cannot be read.
  public static let readNotPermitted = Self(0x02)
  /// The attribute cannot be written.
  public static let writeNotPermitted = Self(0x03)
  /// The attribute PDU was invalid.
  public static let invalidPDU = Self(0x04)
  /// The attribute requires authentication before it can be read or written.
  public static let insufficientAuthentication = Self(0x05)
  /// The server does not support the request received from the client.
  public static let requestNotSupported = Self(0x06)
  /// The offset specified was past the end of the attribute.
  public static let invalidOffset = Self(0x07)
  /// The attribute requires authorization before it can be read or written.
  public static let insufficientAuthorization = Self(0x08)
  /// Too many prepare writes have been queued.
  public static let prepareQueueFull = Self(0x09)
  /// No attribute found within the given attribute handle range.
  public static let attributeNotFound = Self(0x0A)
  /// The attribute cannot be read using the Read Blob Request.
  public static let attributeNotLong = Self(0x0B)
  /// The Encryption Key Size used for encrypting this link is too short.
  public static let encryptionKeySizeTooShort = Self(0x0C)
  /// The attribute value length is invalid for the operation.
  public static let invalidAttributeValueLength = Self(0x0D)
  /// The request encountered an error that was unlikely, and therefore could not be completed.
  public static let unlikelyError = Self(0x0E)
  /// The attribute requires encryption before it can be read or written.
  public static let insufficientEncryption = Self(0x0F)
  /// The attribute type is not a supported grouping attribute as defined by a higher layer specification.
  public static let unsupportedGroupType = Self(0x10)
  /// Insufficient resources to complete the request.
  public static let insufficientResources = Self(0x11)
  /// The server requests the client to rediscover the database.
  public static let databaseOutOfSync = Self(0x12)
  /// The attribute parameter value was not allowed.
  public static let valueNotAllowed = Self(0x13)
  /// Supplement Part B §1.2.1: a write was rejected by the profile.
  public static let writeRequestRejected = Self(0xFC)
  /// Supplement Part B §1.2.2: a Client Characteristic Configuration descriptor is not configured as the
  /// profile requires (e.g. a control point written before its notifications were enabled).
  public static let cccdImproperlyConfigured = Self(0xFD)
  /// Supplement Part B §1.2.3: a request could not be serviced because a procedure is already running.
  public static let procedureAlreadyInProgress = Self(0xFE)
  /// Supplement Part B §1.2.4: an attribute value is out of range as defined by a profile or service.
  public static let outOfRange = Self(0xFF)

  /// True for 0x80–0x9F, reserved for application (higher layer) errors.
  public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }

  /// The code's name as in the Core spec, or its range for application and reserved codes.
  public var name: String {
    switch rawValue {
    case 0x01: "Invalid Handle"
    case 0x02: "Read Not Permitted"
    case 0x03: "Write Not Permitted"
    case 0x04: "Invalid PDU"
    case 0x05: "Insufficient Authentication"
    case 0x06: "Request Not Supported"
    case 0x07: "Invalid Offset"
    case 0x08: "Insufficient Authorization"
    case 0x09: "Prepare Queue Full"
    case 0x0A: "Attribute Not Found"
    case 0x0B: "Attribute Not Long"
    case 0x0C: "Encryption Key Size Too Short"
    case 0x0D: "Invalid Attribute Value Length"
    case 0x0E: "Unlikely Error"
    case 0x0F: "Insufficient Encryption"
    case 0x10: "Unsupported Group Type"
    case 0x11: "Insufficient Resources"
    case 0x12: "Database Out Of Sync"
    case 0x13: "Value Not Allowed"
    case 0x80...0x9F: "Application Error"
    case 0xE0...0xFB: "Common Profile and Service Error"
    case 0xFC: "Write Request Rejected"
    case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
    case 0xFE: "Procedure Already in Progress"
    case 0xFF: "Out of Range"
    default: "Reserved"
    }
  }

  /// What the code means, after the Core spec's description (Table 3.4; Supplement Part B §1.2).
  public var meaning: String {
    switch rawValue {
    case 0x01: "the attribute handle given was not valid on this server"
    case 0x02: "the attribute cannot be read"
    case 0x03: "the attribute cannot be written"
    case 0x04: "the attribute PDU was invalid"
    case 0x05: "the attribute requires authentication before it can be read or written"
    case 0x06: "the server does not support the request received from the client"
    case 0x07: "the offset specified was past the end of the attribute"
    case 0x08: "the attribute requires authorization before it can be read or written"
    case 0x09: "too many prepare writes have been queued"
    case 0x0A: "no attribute found within the given attribute handle range"
    case 0x0B: "the attribute cannot be read using the Read Blob Request"
    case 0x0C: "the encryption key size used for encrypting this link is too short"
    case 0x0D: "the attribute value length is invalid for the operation"
    case 0x0E: "the request encountered an unlikely error and could not be completed"
    case 0x0F: "the attribute requires encryption before it can be read or written"
    case 0x10: "the attribute type is not a supported grouping attribute"
    case 0x11: "insufficient resources to complete the request"
    case 0x12: "the server requests the client to rediscover the database"
    case 0x13: "the attribute parameter value was not allowed"
    case 0x80...0x9F: "an error defined by the application or profile"
    case 0xE0...0xFB: "a common profile or service error (reserved)"
    case 0xFC: "the write request was rejected by the profile"
    case 0xFD: "a Client Characteristic Configuration descriptor is not configured as the profile requires"
    case 0xFE: "a procedure is already in progress"
    case 0xFF: "the attribute value is out of range"
    default: "a code reserved for future use"
    }
  }

  /// `Invalid Offset (0x07)`.
  public var description: String { "\(name) (0x\(hexByte(rawValue)))" }
}

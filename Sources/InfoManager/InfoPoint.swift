/// An Info Manager info point, as `GTLRMobileclientObjects.h` lists its members (docs/protocols/info-manager.md,
/// "Objects"): what a blukii number, NFC tag or barcode stands for in the Info Manager. The members the
/// operator sees are kept; `imageWebUrl`, `infoProviderId`, `condition`, `notificationTo` and `rssi` are read
/// when present but only `imageWebUrl` is shown.
///
/// [?] The object list has no member linking an info point to the blukii ID it was asked for. We read an
/// optional `blukiiId` member (the ID the server matched, see `InfoManagerResponses.infoPoints`); a batch of
/// one ID also takes an answer without it.
public struct InfoPoint: Sendable, Hashable, Codable {
  public var id: String
  /// The blukii ID (or tag/barcode ID) the server matched this info point to, when it says.
  public var blukiiId: String?
  public var name: String?
  public var description: String?
  /// Deactivated by its owner.
  public var deactivated: Bool
  /// Deactivated by an Info Manager administrator.
  public var deactivatedByAdmin: Bool
  public var notificationText: String?
  public var imageWebUrl: String?
  /// Every output info of every language, in the server's order.
  public var outputInfos: [OutputInfo]

  public init(
    id: String, blukiiId: String? = nil, name: String? = nil, description: String? = nil, deactivated: Bool = false,
    deactivatedByAdmin: Bool = false, notificationText: String? = nil, imageWebUrl: String? = nil,
    outputInfos: [OutputInfo] = []
  ) {
    self.id = id
    self.blukiiId = blukiiId
    self.name = name
    self.description = description
    self.deactivated = deactivated
    self.deactivatedByAdmin = deactivatedByAdmin
    self.notificationText = notificationText
    self.imageWebUrl = imageWebUrl
    self.outputInfos = outputInfos
  }
}

/// One piece of content of an info point in one language (`OutputInfo{type, title, url, languageCode,
/// audioFileUrl, textToSpeech}`, docs/protocols/info-manager.md).
public struct OutputInfo: Sendable, Hashable, Codable {
  public var type: OutputInfoType
  public var title: String?
  public var url: String?
  /// Lower case (`de-de`); the decoder folds the server's case.
  public var languageCode: String?
  public var audioFileUrl: String?
  public var textToSpeech: String?

  public init(
    type: OutputInfoType, title: String? = nil, url: String? = nil, languageCode: String? = nil,
    audioFileUrl: String? = nil, textToSpeech: String? = nil
  ) {
    self.type = type
    self.title = title
    self.url = url
    self.languageCode = languageCode
    self.audioFileUrl = audioFileUrl
    self.textToSpeech = textToSpeech
  }
}

/// An output info's type: the ten of v1.0.2 plus v2's MECARD (docs/protocols/info-manager.md) are `known`; any other the
/// server sends (a newer Info Manager's `SURVEY`, say) is kept as sent, shown raw and warned about, instead of
/// failing the whole resolve — an open set, not an enum, for that reason.
public struct OutputInfoType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

  public static let audio = Self(rawValue: "AUDIO"), html = Self(rawValue: "HTML"), message = Self(rawValue: "MESSAGE")
  public static let mobycard = Self(rawValue: "MOBYCARD"), pdf = Self(rawValue: "PDF"), vcard = Self(rawValue: "VCARD")
  public static let mecard = Self(rawValue: "MECARD"), video = Self(rawValue: "VIDEO"), wifi = Self(rawValue: "WIFI")
  public static let youtube = Self(rawValue: "YOUTUBE")

  /// The types this version knows, in the SDK's order.
  public static let known: [OutputInfoType] = [
    .audio, .html, .message, .mobycard, .pdf, .vcard, .mecard, .video, .wifi, .youtube,
  ]
  public var isKnown: Bool { Self.known.contains(self) }

  /// The known values, for messages.
  public static var allowed: String { known.map(\.rawValue).joined(separator: ", ") }
  public var description: String { rawValue }

  public init(from decoder: any Decoder) throws {
    self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
  }
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

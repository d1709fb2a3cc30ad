/// An Info Manager info point, as `GTLRMobileclientObjects.h` lists its members (seed-systems.md §6,
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
    deactivatedByAdmin: Bool = false, notificationText: String? = nil, imageWebUrl: String? = nil, outputInfos: [OutputInfo] = []
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
/// audioFileUrl, textToSpeech}`, seed-systems.md §6).
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

/// The output info types of v1.0.2 plus v2's MECARD (seed-systems.md §6).
public enum OutputInfoType: String, Sendable, Hashable, Codable, CaseIterable {
  case audio = "AUDIO", html = "HTML", message = "MESSAGE", mobycard = "MOBYCARD", pdf = "PDF", vcard = "VCARD"
  case mecard = "MECARD", video = "VIDEO", wifi = "WIFI", youtube = "YOUTUBE"

  /// The allowed values, for error messages.
  public static var allowed: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

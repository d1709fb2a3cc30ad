/// The state of one resolve, the SDK's `BKOutputElement.resolveState` (docs/protocols/info-manager.md, "Resolve states").
public enum ResolveState: String, Sendable, Hashable, Codable, CaseIterable {
  /// Resolve is off, or the Info Manager could not be reached (and nothing fresh was cached).
  case unresolved = "UNRESOLVED"
  /// The Info Manager answered with an info point for the ID.
  case resolved = "RESOLVED"
  /// The Info Manager answered, with nothing for the ID: the module is not registered.
  case noData = "NODATA"
  /// An earlier answer, served from the cache.
  case cached = "CACHED"
}

/// Where an ID comes from, the SDK's `BKInputSourceType` (docs/protocols/info-manager.md, "The SDK's classes", `BKInputElement`): a heard blukii
/// module, an NFC tag or a scanned barcode. [I] All three are asked through `getBlukiisInfo`: the public
/// artifacts show no other method taking tag IDs; the source is carried into the result for the reader.
public enum InputSource: String, Sendable, Hashable, Codable, CaseIterable {
  case blukii, nfc, barcode
}

/// One resolved ID: the `BKOutputElement` of a resolve, with the content chosen by the language priority.
public struct ResolveResult: Sendable, Hashable, Codable {
  public var id: String
  public var source: InputSource
  public var state: ResolveState
  /// The info point (RESOLVED or CACHED).
  public var infoPoint: InfoPointSummary?
  /// Seconds since 1970 of the answer a CACHED result comes from.
  public var cachedAt: Double?
  /// Why an UNRESOLVED result has no data (the server's failure, without secrets), or why a NODATA result
  /// may be wrong (the answer's info points could not be matched to the IDs asked).
  public var reason: String?

  public init(
    id: String, source: InputSource, state: ResolveState, infoPoint: InfoPointSummary? = nil, cachedAt: Double? = nil,
    reason: String? = nil
  ) {
    self.id = id
    self.source = source
    self.state = state
    self.infoPoint = infoPoint
    self.cachedAt = cachedAt
    self.reason = reason
  }
}

/// What an operator sees of an info point: its text members, flags, and the output infos of the first
/// language of the priority list that has any (`language` nil when none has).
public struct InfoPointSummary: Sendable, Hashable, Codable {
  public var id: String
  public var name: String?
  public var description: String?
  public var deactivated: Bool
  public var deactivatedByAdmin: Bool
  public var notificationText: String?
  public var language: String?
  public var outputInfos: [OutputInfo]

  public init(_ point: InfoPoint, languages: LanguagePriority) {
    id = point.id
    name = point.name
    description = point.description
    deactivated = point.deactivated
    deactivatedByAdmin = point.deactivatedByAdmin
    notificationText = point.notificationText
    (language, outputInfos) = languages.choose(from: point)
  }
}

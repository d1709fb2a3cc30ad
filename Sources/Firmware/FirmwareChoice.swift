import Profiles

/// Which release a campaign or `firmware fetch` asks for: the newest, or one version.
public enum FirmwareWanted: Sendable, Hashable, CustomStringConvertible {
  case latest
  case version(FirmwareVersion)

  /// `latest` or a version like `V5.30`; nil otherwise.
  public init?(_ text: String) {
    if text.lowercased() == "latest" {
      self = .latest
    } else if let v = FirmwareVersion(text) {
      self = .version(v)
    } else {
      return nil
    }
  }

  public var description: String {
    switch self {
    case .latest: "latest"
    case .version(let v): "V\(v)"
    }
  }
}

/// What the catalogue offers one device (docs/protocols/kbeacon.md §11): KKM's apps offer the newest entry when
/// it is newer than the device; so do we, by `FirmwareVersion` order. A device is never downgraded: asked
/// for a version older than (or equal to) what it runs, it is up to date.
public enum FirmwareChoice: Sendable, Hashable {
  case install(CatalogueEntry)
  /// Nothing newer to install: the device's version, and the newest the catalogue has for it.
  case upToDate(current: FirmwareVersion, newest: FirmwareVersion?)
  /// The catalogue has nothing for this device; the reason says what is missing.
  case unavailable(String)

  public static func choose(
    _ catalogue: FirmwareCatalogue, hardware: String?, current: FirmwareVersion?, wanted: FirmwareWanted
  ) -> FirmwareChoice {
    guard let hardware else { return .unavailable("the device did not report its hardware version (hver)") }
    let entries = catalogue.entries(hardware: hardware)
    guard !entries.isEmpty else {
      if catalogue.hardwareVersions.contains(hardware) {
        return .unavailable("the \(catalogue.model) catalogue lists no releases for hardware \(hardware)")
      }
      let known = catalogue.hardwareVersions.joined(separator: ", ")
      return .unavailable(
        "the \(catalogue.model) catalogue has no firmware for hardware \(hardware) (it has: \(known.isEmpty ? "none" : known))"
      )
    }
    let candidate: CatalogueEntry
    switch wanted {
    case .latest:
      candidate = catalogue.latest(hardware: hardware)!
    case .version(let v):
      guard let match = entries.first(where: { $0.version == v }) else {
        return .unavailable(
          "the \(catalogue.model) catalogue has no V\(v) for hardware \(hardware) (it has: \(entries.map(\.appVersion).joined(separator: ", ")))"
        )
      }
      candidate = match
    }
    guard let current else { return .unavailable("the device did not report its firmware version (ver)") }
    if candidate.version > current { return .install(candidate) }
    return .upToDate(current: current, newest: catalogue.latest(hardware: hardware)?.version)
  }
}

import BeaconCore

/// Where a model's catalogue and its packages are (docs/protocols/kbeacon.md §11): `<base>/<model>.json`, and
/// each package at `<base>/<appFileName>`. The base is an `http://`, `https://` or `file://` URL; KKM's
/// public one is `https://download.kkmiot.com:8093/KBeaconFirmware/` (an example only: nothing depends on
/// reaching it). A base may carry credentials (`https://user:password@host/…`); its `description`, and so
/// every message, journal entry and cache record that names it, has them removed (`RedactedURL`).
public struct CatalogueLocation: Sendable, Hashable, CustomStringConvertible {
  /// KKM's public base, for documentation (`--help`, README).
  public static let kkmPublicBase = "https://download.kkmiot.com:8093/KBeaconFirmware/"

  /// The base URL, always ending in `/`.
  public let base: String

  /// Checks the scheme; a missing trailing `/` is added (KKM's base is a folder).
  public init(base text: String) throws(CatalogueLocationError) {
    let lower = text.lowercased()
    guard ["http://", "https://", "file://"].contains(where: { lower.hasPrefix($0) }) else {
      throw CatalogueLocationError(message: "\(RedactedURL(text)) is not an http://, https:// or file:// URL")
    }
    guard !text.contains(where: { $0.isWhitespace }), !text.contains("?"), !text.contains("#") else {
      throw CatalogueLocationError(
        message: "\(RedactedURL(text)): a catalogue base URL has no spaces, query or fragment")
    }
    base = text.hasSuffix("/") ? text : text + "/"
  }

  /// `<base>/<model>.json`; a model that is not a plain file name is refused.
  public func catalogueURL(model: String) throws(CatalogueLocationError) -> String {
    if let problem = PackageFileName.problem(model + ".json") {
      throw CatalogueLocationError(message: "model \"\(model)\" \(problem)")
    }
    return base + model + ".json"
  }

  /// `<base>/<appFileName>` (the name was checked when the catalogue was decoded).
  public func packageURL(_ entry: CatalogueEntry) -> String { base + entry.appFileName }

  /// A `file://` base's folder, for offline catalogues; nil for http(s).
  public var filePath: String? {
    base.lowercased().hasPrefix("file://") ? String(base.dropFirst("file://".count)) : nil
  }

  /// The base without credentials, for messages.
  public var description: String { RedactedURL(base).description }
}

public struct CatalogueLocationError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

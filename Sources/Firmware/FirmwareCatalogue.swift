import JSON
import Profiles

/// A KKM firmware catalogue, `<base>/<model>.json` (docs/protocols/kbeacon.md §11): an object keyed by hardware
/// version (`hver`, as the device reports it) whose arrays list releases. Decoded with the project's JSON
/// parser, so a bad catalogue is refused with its line, column and JSON path. Pure: bytes in.
///
/// [?] No sample catalogue is public. Our choices: keys other than the four KKM names and our `sha256` /
/// `size` are ignored (forward compatible); the same version twice under one `hver` is an error (which
/// one would be meant?); an empty array is allowed (no firmware for that hardware yet).
public struct FirmwareCatalogue: Sendable, Hashable {
  public var model: String
  /// The releases per hardware version, in the catalogue's order.
  public var releases: [(hardware: String, entries: [CatalogueEntry])]

  public init(model: String, releases: [(hardware: String, entries: [CatalogueEntry])]) {
    self.model = model
    self.releases = releases
  }

  public static func == (a: Self, b: Self) -> Bool {
    a.model == b.model && a.releases.map(\.hardware) == b.releases.map(\.hardware)
      && a.releases.map(\.entries) == b.releases.map(\.entries)
  }
  public func hash(into hasher: inout Hasher) {
    hasher.combine(model)
    for r in releases {
      hasher.combine(r.hardware)
      hasher.combine(r.entries)
    }
  }

  public var hardwareVersions: [String] { releases.map(\.hardware) }

  /// The releases for one hardware version (empty when the catalogue has none).
  public func entries(hardware: String) -> [CatalogueEntry] {
    releases.first { $0.hardware == hardware }?.entries ?? []
  }

  /// The newest release for `hardware`, by `FirmwareVersion` (KKM's apps take the array's last entry; we
  /// take the greatest version, which is the same for a catalogue kept in order).
  public func latest(hardware: String) -> CatalogueEntry? {
    entries(hardware: hardware).max { $0.version < $1.version }
  }

  /// The releases for `hardware` newer than `current`, oldest first (their notes say what changed).
  public func newer(than current: FirmwareVersion, hardware: String) -> [CatalogueEntry] {
    entries(hardware: hardware).filter { $0.version > current }.sorted { $0.version < $1.version }
  }

  /// Decodes a catalogue's bytes; `source` names it in errors (a URL or a file).
  public static func decode(_ bytes: [UInt8], model: String, source: String) throws(JSONDiagnostic) -> FirmwareCatalogue
  {
    let root: SourceJSON
    do {
      root = try JSONParser.parseWithPositions(bytes, options: .file)
    } catch {
      throw .syntax(error, file: source)
    }
    guard case .object(let members) = root.kind else {
      throw JSONDiagnostic(
        file: source, position: root.position, path: .root,
        message: "expected an object keyed by hardware version (\"V1.0\": [ … ]), found \(root.typeName)")
    }
    var releases: [(hardware: String, entries: [CatalogueEntry])] = []
    for member in members {
      let path = JSONPath.root.appending(member.key)
      if releases.contains(where: { $0.hardware == member.key }) {
        throw JSONDiagnostic(
          file: source, position: member.keyPosition, path: path, message: "hardware version given twice")
      }
      guard case .array(let items) = member.value.kind else {
        throw JSONDiagnostic(
          file: source, position: member.value.position, path: path,
          message: "expected an array of {appVersion, appFileName, note}, found \(member.value.typeName)")
      }
      var entries: [CatalogueEntry] = []
      for (index, item) in items.enumerated() {
        let entry = try CatalogueEntryDecoder(source: source, path: path.appending(index)).decode(item)
        if let twin = entries.first(where: { $0.version == entry.version }) {
          throw JSONDiagnostic(
            file: source, position: item.position, path: path.appending(index),
            message: "version \(entry.appVersion) is listed twice (also as \(twin.appVersion))")
        }
        entries.append(entry)
      }
      releases.append((member.key, entries))
    }
    return FirmwareCatalogue(model: model, releases: releases)
  }
}

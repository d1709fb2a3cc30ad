import JSON
import Profiles

/// Reads one `{appVersion, appFileName, note, sha256?, size?}` object of a catalogue (docs/protocols/kbeacon.md
/// §11), naming the member's position and JSON path in every refusal.
struct CatalogueEntryDecoder {
  var source: String
  var path: JSONPath

  func decode(_ json: SourceJSON) throws(JSONDiagnostic) -> CatalogueEntry {
    guard case .object = json.kind else {
      throw fail(json, path, "expected an object {appVersion, appFileName, note}, found \(json.typeName)")
    }
    let appVersion = try string(json, "appVersion", required: true)!
    guard let version = FirmwareVersion(appVersion) else {
      throw fail(json["appVersion"]!, path.appending("appVersion"), "\"\(appVersion)\" is not a version like V5.30")
    }
    let appFileName = try string(json, "appFileName", required: true)!
    if let reason = PackageFileName.problem(appFileName) {
      throw fail(json["appFileName"]!, path.appending("appFileName"), "\"\(appFileName)\" \(reason)")
    }
    let note = try string(json, "note", required: false) ?? ""
    var digest: [UInt8]?
    if let text = try string(json, "sha256", required: false) {
      guard text.count == 64, let bytes = Hex.bytes(text) else {
        throw fail(json["sha256"]!, path.appending("sha256"), "expected 64 hex digits (a SHA-256), found \"\(text)\"")
      }
      digest = bytes
    }
    var size: Int?
    if let value = json["size"] {
      guard case .number(let n, let text) = value.kind, n.isFinite, n >= 1, n <= 1e12, n.rounded() == n else {
        throw fail(value, path.appending("size"), "expected a whole number of bytes (1…10^12), found \(value.typeName)")
      }
      size = Int(text) ?? Int(n)
    }
    return CatalogueEntry(
      appVersion: appVersion, version: version, appFileName: appFileName, note: note, sha256: digest, size: size)
  }

  private func string(_ json: SourceJSON, _ key: String, required: Bool) throws(JSONDiagnostic) -> String? {
    guard let value = json[key] else {
      if required { throw fail(json, path, "missing \"\(key)\" (each entry needs appVersion and appFileName)") }
      return nil
    }
    guard case .string(let text) = value.kind else {
      throw fail(value, path.appending(key), "expected a string, found \(value.typeName)")
    }
    return text
  }

  private func fail(_ json: SourceJSON, _ path: JSONPath, _ message: String) -> JSONDiagnostic {
    JSONDiagnostic(file: source, position: json.position, path: path, message: message)
  }
}

/// A catalogue's `appFileName` is appended to the base URL, so it must be one file name: no path
/// separators, no `..`, nothing that would leave the catalogue's folder or make a query — and not a name the
/// firmware cache gives its own files in the package's folder.
///
/// Checked scalar by scalar, not by `Character`: a combining mark after a `/` makes one grapheme that is not
/// equal to "/", yet the URL still holds the `/` byte.
public enum PackageFileName {
  /// Why `name` is not a plain file name, or nil.
  public static func problem(_ name: String) -> String? {
    let scalars = Array(name.unicodeScalars)
    if scalars.isEmpty { return "is empty" }
    if scalars.contains("/") || scalars.contains("\\") { return "is not a plain file name (it has a path separator)" }
    if zip(scalars, scalars.dropFirst()).contains(where: { $0 == "." && $1 == "." }) || scalars == ["."] {
      return "is not a plain file name (it has \"..\")"
    }
    if scalars.contains(where: {
      $0.properties.isWhitespace || "?#%".unicodeScalars.contains($0) || $0.value < 0x20 || $0.value == 0x7F
    }) {
      return "is not a plain file name (it has a space, '?', '#', '%' or a control character)"
    }
    // The cache keeps the package beside its record and lock, and writes through `.part` and `.tmp-` files.
    if ["package.json", ".lock"].contains(name) || name.hasSuffix(".part") || name.contains(".tmp-") {
      return "is a name the firmware cache keeps for itself (package.json, .lock, *.part, *.tmp-*)"
    }
    return nil
  }
}

import JSON

/// `manifest.json` of a Secure DFU package (docs/protocols/nordic-dfu.md §1.1): `{"manifest": {<image key>: {bin_file,
/// dat_file, …}}}`. Legacy manifests (§1.2: top-level `dfu_version`, per-image `init_packet_data`) are
/// recognised so they can be refused with a clear message.
public struct Manifest: Equatable, Sendable {
  /// One image entry: the manifest key and its two file names.
  public struct Entry: Equatable, Sendable {
    public var kind: ImageKind
    public var binFile: String
    public var datFile: String?
  }

  public var entries: [Entry]

  /// Parses the JSON. Throws `.legacyPackage` for the legacy format, `.invalidManifest` otherwise, whose text
  /// is the one error shape of every file the tool reads: `manifest.json:LINE:COL: $.path: message`.
  public init(json: [UInt8]) throws(PackageError) {
    let file = "manifest.json"
    let root: SourceJSON
    do {
      root = try JSONParser.parseWithPositions(json, options: .file)
    } catch {
      throw .invalidManifest(JSONDiagnostic.syntax(error, file: file).description)
    }
    func invalid(_ at: SourceJSON, _ path: JSONPath, _ message: String, allowed: String? = nil) -> PackageError {
      .invalidManifest(
        JSONDiagnostic(file: file, position: at.position, path: path, message: message, allowed: allowed).description)
    }
    let manifestPath = JSONPath.root.appending("manifest")
    guard case .object = root.kind, let manifest = root["manifest"], case .object(let members) = manifest.kind else {
      throw invalid(root["manifest"] ?? root, manifestPath, "expected a \"manifest\" object")
    }
    if manifest["dfu_version"] != nil { throw .legacyPackage }
    var entries: [Entry] = []
    for member in members.sorted(by: { $0.key < $1.key }) {
      let path = manifestPath.appending(member.key)
      let object = member.value
      guard case .object = object.kind else {
        throw invalid(object, path, "expected an object, found \(object.typeName)")
      }
      if object["init_packet_data"] != nil { throw .legacyPackage }
      guard let kind = ImageKind(rawValue: member.key) else {
        let known = ImageKind.allCases.map(\.rawValue)
        if Suggestion.closest(to: member.key, in: known) != nil {
          throw .invalidManifest(
            JSONDiagnostic.unknownKey(
              member.key, file: file, position: member.keyPosition, in: manifestPath, known: known
            )
            .description)
        }
        throw .unsupportedImage(member.key)
      }
      guard let binValue = object["bin_file"], case .string(let bin) = binValue.kind else {
        throw invalid(object["bin_file"] ?? object, path.appending("bin_file"), "expected the image's file name")
      }
      var dat: String?
      if let datValue = object["dat_file"], case .string(let text) = datValue.kind { dat = text }
      entries.append(Entry(kind: kind, binFile: bin, datFile: dat))
    }
    guard !entries.isEmpty else { throw invalid(manifest, manifestPath, "no images") }
    self.entries = entries
  }
}

/// A manifest image key (§1.1). The Android-only combined keys are not accepted (nrfutil never makes them).
public enum ImageKind: String, Sendable, Codable, CaseIterable {
  case softDeviceBootloader = "softdevice_bootloader"
  case softDevice = "softdevice"
  case bootloader = "bootloader"
  case application = "application"

  /// The init packet type an image of this kind must declare.
  public var firmwareType: FirmwareType {
    switch self {
    case .application: .application
    case .softDevice: .softDevice
    case .bootloader: .bootloader
    case .softDeviceBootloader: .softDeviceBootloader
    }
  }

  /// Transfer order (§2.5 "Multi-part packages"; nrfutil `dfu_send_images`: SD+BL, SD, BL, APP).
  public var transferOrder: Int {
    switch self {
    case .softDeviceBootloader: 0
    case .softDevice: 1
    case .bootloader: 2
    case .application: 3
    }
  }
}

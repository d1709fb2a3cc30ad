import Foundation

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

  /// Parses the JSON. Throws `.legacyPackage` for the legacy format, `.invalidManifest` otherwise.
  public init(json: [UInt8]) throws(PackageError) {
    let root: Any
    do {
      root = try JSONSerialization.jsonObject(with: Data(json))
    } catch {
      throw .invalidManifest("not JSON")
    }
    guard let top = root as? [String: Any], let manifest = top["manifest"] as? [String: Any] else {
      throw .invalidManifest("no \"manifest\" object")
    }
    if manifest["dfu_version"] != nil { throw .legacyPackage }
    var entries: [Entry] = []
    for (key, value) in manifest.sorted(by: { $0.key < $1.key }) {
      guard let object = value as? [String: Any] else { throw .invalidManifest("\"\(key)\" is not an object") }
      if object["init_packet_data"] != nil { throw .legacyPackage }
      guard let kind = ImageKind(rawValue: key) else { throw .unsupportedImage(key) }
      guard let bin = object["bin_file"] as? String else { throw .invalidManifest("\"\(key)\" has no bin_file") }
      let dat = object["dat_file"] as? String
      entries.append(Entry(kind: kind, binFile: bin, datFile: dat))
    }
    guard !entries.isEmpty else { throw .invalidManifest("no images") }
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

/// A Secure DFU package read into memory (docs/protocols/nordic-dfu.md §1.1): its images in transfer order, each with
/// the firmware bytes, the raw init packet and its decoding. Built by `init(archive:)`, which performs the
/// structural checks of §1.4 items 1–3; the content checks are `PackageValidator`'s.
public struct DFUPackage: Sendable {
  /// One image of the package.
  public struct Image: Sendable {
    public var kind: ImageKind
    public var binFile: String
    public var datFile: String
    public var firmware: [UInt8]
    public var initPacketBytes: [UInt8]
    public var initPacket: InitPacket
  }

  /// Images in the order they are sent: SD+BL / SD / BL first, application last.
  public var images: [Image]

  public init(images: [Image]) { self.images = images }

  /// Reads `manifest.json`, checks the image combination, reads and decodes every file.
  public init(archive: some PackageArchive, limits: ArchiveLimits = ArchiveLimits()) throws(PackageError) {
    try limits.check(archive.entries)
    let manifest = try Manifest(json: try archive.read("manifest.json"))
    let kinds = manifest.entries.map(\.kind)
    guard Self.isValidCombination(kinds) else { throw .invalidImageCombination(kinds) }
    var images: [Image] = []
    for entry in manifest.entries.sorted(by: { $0.kind.transferOrder < $1.kind.transferOrder }) {
      guard let datFile = entry.datFile else { throw .missingInitPacket(entry.kind) }
      for name in [entry.binFile, datFile] where !ArchiveLimits.isSafeName(name) {
        throw .unsafeEntryName(name)
      }
      let dat = try archive.read(datFile)
      guard dat.count <= InitPacket.maximumSize else { throw .initPacketTooLarge(entry.kind, dat.count) }
      // A legacy package is recognised by its manifest (§1.2, `Manifest`); a `.dat` that does not decode
      // inside a Secure manifest is a malformed init packet, whatever its first byte.
      let packet: InitPacket
      do {
        packet = try InitPacket(decoding: dat)
      } catch {
        throw .invalidInitPacket(entry.kind, error)
      }
      let bin = try archive.read(entry.binFile)
      images.append(
        Image(
          kind: entry.kind, binFile: entry.binFile, datFile: datFile, firmware: bin, initPacketBytes: dat,
          initPacket: packet))
    }
    self.images = images
  }

  /// §1.1 (IOS `Manifest.isValid`): at most one of SD / BL / SD+BL, optionally plus the application.
  public static func isValidCombination(_ kinds: [ImageKind]) -> Bool {
    guard !kinds.isEmpty, Set(kinds).count == kinds.count else { return false }
    return kinds.filter { $0 != .application }.count <= 1
  }
}

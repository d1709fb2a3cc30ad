/// Everything that makes a package unusable, found before any connection (docs/protocols/nordic-dfu.md §1.4). Each case
/// reads as one operator sentence.
public enum PackageError: Error, Equatable, Sendable, CustomStringConvertible {
  case unreadableArchive(String)
  case tooManyEntries(Int)
  case unsafeEntryName(String)
  case duplicateEntry(String)
  case entryTooLarge(String, UInt64)
  case packageTooLarge(UInt64)
  /// The file's size and the cap (`ArchiveLimits.maximumFileSize`).
  case fileTooLarge(UInt64, UInt64)
  case suspiciousCompression(String)
  case missingFile(String)
  case invalidManifest(String)
  case legacyPackage
  case unsupportedImage(String)
  case invalidImageCombination([ImageKind])
  case missingInitPacket(ImageKind)
  case initPacketTooLarge(ImageKind, Int)
  case invalidInitPacket(ImageKind, InitPacketError)

  public var description: String {
    switch self {
    case .unreadableArchive(let why): "the package is not a readable zip (\(why))"
    case .tooManyEntries(let n): "the package has \(n) entries; a DFU package has at most a few"
    case .unsafeEntryName(let name): "the package contains an unsafe path \"\(name)\""
    case .duplicateEntry(let name): "the package contains \"\(name)\" twice"
    case .entryTooLarge(let name, let size): "\"\(name)\" is \(size) bytes, more than a DFU image can be"
    case .packageTooLarge(let size): "the package unpacks to \(size) bytes, more than a DFU package can be"
    case .fileTooLarge(let size, let cap):
      "the file is \(size) bytes; a DFU package larger than \(cap >> 20) MiB (\(cap) bytes) is refused (its images unpack to at most \(ArchiveLimits().maximumTotalSize >> 20) MiB)"
    case .suspiciousCompression(let name): "\"\(name)\" is compressed suspiciously well (zip bomb?)"
    case .missingFile(let name): "the package has no file \"\(name)\""
    case .invalidManifest(let why): why
    case .legacyPackage:
      "this is a legacy DFU package (nrfutil 0.5 / adafruit-nrfutil, init_packet_data); only Secure DFU packages are supported"
    case .unsupportedImage(let key): "unsupported image \"\(key)\" in the manifest"
    case .invalidImageCombination(let kinds):
      "invalid image combination \(kinds.map(\.rawValue)); allowed: one of softdevice/bootloader/softdevice_bootloader, optionally with application"
    case .missingInitPacket(let kind): "the \(kind.rawValue) image has no init packet (.dat); Secure DFU requires one"
    case .initPacketTooLarge(let kind, let n):
      "the \(kind.rawValue) init packet is \(n) bytes; the bootloader accepts at most \(InitPacket.maximumSize)"
    case .invalidInitPacket(let kind, let e): "the \(kind.rawValue) image: \(e)"
    }
  }
}

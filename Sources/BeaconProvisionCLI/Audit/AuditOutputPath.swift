import ArgumentParser
import Foundation

/// `audit --output`: checked before any radio work, so a report that cannot be written is refused at once
/// instead of after scanning and reading every device (and in our words, not Foundation's).
///
/// - The format comes from `--format`, else from the file's extension (`.json`, `.csv`, `.md`/`.markdown`,
///   `.html`/`.htm`), else Markdown when the name has no extension. An extension that names another format
///   than `--format` (CSV into `x.html`), or no report format at all without `--format` (`r.xlsx`), is a
///   usage error: the file would not be what its name says.
/// - The path must not be a directory, its folder must exist and be writable.
struct AuditOutputPath {
  let path: String

  /// Extensions that name a report format.
  static let extensions: [String: AuditFormat] = [
    "json": .json, "csv": .csv, "md": .md, "markdown": .md, "html": .html, "htm": .html,
  ]

  var fileExtension: String { (path as NSString).pathExtension.lowercased() }

  /// The format the extension names; nil when there is no extension.
  func namedFormat() throws -> AuditFormat? {
    let ext = fileExtension
    if ext.isEmpty { return nil }
    guard let format = Self.extensions[ext] else {
      throw ValidationError(
        "--output \(path): .\(ext) is not a report format (allowed: .json, .csv, .md, .html; or name the format with --format)"
      )
    }
    return format
  }

  /// The usage check: `--format` and the extension agree.
  func validate(format: AuditFormat?) throws {
    guard let format else {
      _ = try namedFormat()
      return
    }
    let ext = fileExtension
    if let named = Self.extensions[ext], named != format {
      throw ValidationError(
        "--format \(format.rawValue) does not match --output \(path) (a .\(ext) file is \(named.rawValue)); "
          + "name the file .\(format.rawValue) or drop --format")
    }
  }

  /// The file-system check, before any radio work: an existing directory, a missing or unwritable folder.
  func checkWritable() throws {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      throw CLIFailure(
        "cannot write the report to \(path): it is a directory; give a file name such as \(path)/audit.md")
    }
    let folder =
      (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
      throw CLIFailure("cannot write the report to \(path): the folder \(folder) does not exist")
    }
    guard isDirectory.boolValue else {
      throw CLIFailure("cannot write the report to \(path): \(folder) is not a folder")
    }
    guard access(folder, W_OK) == 0 else {
      throw CLIFailure("cannot write the report to \(path): the folder \(folder) is not writable by this user")
    }
  }
}

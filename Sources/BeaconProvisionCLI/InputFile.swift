import Foundation

/// A file the operator names (a profile, an inventory, an events file), read whole with a refusal that says
/// what is wrong with the path: missing, a directory, or unreadable and why. Every one of them said "no
/// such file" — a folder given as a profile too.
enum InputFile {
  /// The file's bytes; throws `CLIFailure` naming the path and the reason.
  static func read(_ path: String) throws -> Data {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw CLIFailure("no such file: \(path)")
    }
    if isDirectory.boolValue { throw CLIFailure("\(path) is a directory, not a file") }
    guard let data = FileManager.default.contents(atPath: path) else {
      let reason = access(path, R_OK) == 0 ? "it cannot be read" : String(cString: strerror(EACCES))
      throw CLIFailure("cannot read \(path): \(reason)")
    }
    return data
  }
}

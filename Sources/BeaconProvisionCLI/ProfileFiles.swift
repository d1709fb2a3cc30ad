import BeaconCore
import Foundation
import Profiles

/// Reading profiles from disk for the commands: file I/O at the edge, decoding in `Profiles`.
enum ProfileFiles {
  static func load(_ file: String) throws -> LoadedProfile {
    do {
      return try LoadedProfile.load(
        file: file, read: { path in
          guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure("no such file: \(path)") }
          return Array(data)
        }, urlCheck: eddystoneURLCheck)
    } catch {
      throw CLIFailure(error.description)
    }
  }

  /// The Eddystone-URL encodability rule profiles are checked with: the scanner's own encoder
  /// (beacon-formats.md §2), so what a profile accepts is exactly what can be advertised.
  static let eddystoneURLCheck: FieldCheck.URLCheck = { url in
    do {
      _ = try EddystoneURLCodec.encode(url)
      return nil
    } catch {
      return String(describing: error)
    }
  }
}

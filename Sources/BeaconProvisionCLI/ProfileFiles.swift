import BeaconCore
import Fleet
import Foundation
import Profiles

/// Reading profiles from disk for the commands: file I/O at the edge, decoding in `Profiles`.
enum ProfileFiles {
  static func load(_ file: String) throws -> LoadedProfile { try loadForRun(file).profile }

  /// The profile and what a run made from it records (`RunRecipe`, so a run id reused with another profile is refused): the SHA-256 of every
  /// byte read for it — the profile, then its inventory — under `profile`, or `text-command profile` for a
  /// profile with a `commands` section (the text-command campaign).
  static func loadForRun(_ file: String) throws -> (profile: LoadedProfile, recipe: RunRecipe) {
    var content: [UInt8] = []
    do {
      let loaded = try LoadedProfile.load(
        file: file,
        read: { path in
          // The first file read is the profile; the one it names after that, its inventory.
          let data = try InputFile.read(path, limit: path == file ? .profile : .inventory)
          content += data
          return Array(data)
        }, urlCheck: eddystoneURLCheck)
      return (loaded, RunRecipe(loaded.profile.commands == nil ? "profile" : "text-command profile", content: content))
    } catch {
      throw CLIFailure(error.description)
    }
  }

  /// The Eddystone-URL encodability rule profiles are checked with: the scanner's own encoder
  /// (docs/protocols/beacon-formats.md §2), so what a profile accepts is exactly what can be advertised.
  static let eddystoneURLCheck: FieldCheck.URLCheck = { url in
    do {
      _ = try EddystoneURLCodec.encode(url)
      return nil
    } catch {
      return String(describing: error)
    }
  }
}

#if !BEACON_PROVISION_STAMPED
  /// What `--version` says of the build itself, for a plain `swift build`: version "dev", no commit, no BlueZ
  /// package version. `scripts/package` writes `BuildStamp.generated.swift` beside this file (git-ignored) with
  /// the `git describe` version, the commit and the libbluetooth3 package version it built against, and sets
  /// `BEACON_PROVISION_STAMPED=1` (Package.swift turns it into the compilation condition that swaps the two).
  /// [I] A generated source file rather than a resource or a `-D` value: Swift conditions carry no strings,
  /// and a source file needs no reading at run time.
  enum BuildStamp {
    static let version = "dev"
    static let commit: String? = nil
    /// The Debian version of libbluetooth3 at build time; libbluetooth itself has no version call.
    static let bluezPackage: String? = nil
  }
#endif

/// What `beacon-provision --version` prints: the version (`git describe` when built by scripts/package,
/// "dev" otherwise), the commit, and the runtime versions of the C libraries it links, so a bug report from a
/// gateway says exactly what ran.
enum VersionText {
  static func render(
    version: String = BuildStamp.version, commit: String? = BuildStamp.commit,
    libraries: LibraryVersions = .current()
  ) -> String {
    (["beacon-provision \(version)", "commit \(commit ?? "unknown (not built by scripts/package)")", "libraries:"]
      + libraries.lines.map { "  " + $0 }).joined(separator: "\n")
  }
}

/// The scheme of a URL string, for the redirect and resume rules.
enum URLScheme: Sendable, Hashable {
  case http, https, file, other
  init(_ url: String) {
    let lower = url.prefix(8).lowercased()
    self =
      lower.hasPrefix("https://")
      ? .https : lower.hasPrefix("http://") ? .http : lower.hasPrefix("file://") ? .file : .other
  }
}

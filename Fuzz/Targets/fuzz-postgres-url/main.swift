import FleetIO
import Foundation
import FuzzSupport

// The `--journal` connection URL (`PostgresURL`): the input is read as a URL (prefixed with a scheme
// when it has none, so the interesting part is reached), and against a model of how libpq reads a URI
// (fe-connect.c: credentials up to the first `@` before any `/`, a password after their first `:`; query
// parameters after the first `?` that follows them, keys and values percent-decoded):
// - a URL libpq would take a password from (credentials or a `password`/`sslpassword` parameter) is refused;
// - the redacted form shows each place libpq reads a password from fewer times than the URL does (the text
//   `:secret@` or `password=secret`: the same text elsewhere, say in a user name, is not a password);
// - the error message shows only the redacted form.
// (Redacting twice may differ from once: a hidden value that held a `/` changes where the host part ends.)
// A password written as `***` is what redacting writes, so it is left out.
Fuzzer.run { data, size in
  guard let input = String(validating: Fuzzer.bytes(data, size), as: UTF8.self) else { return 0 }
  let text = PostgresURL.isPostgres(input) ? input : "postgresql://" + input
  let secrets = LibpqModel.secrets(text).filter { $0.value != "***" }
  let redacted = PostgresURL.redact(text)
  for secret in secrets {
    precondition(
      (redacted + "&").occurrences(of: secret.written) < (text + "&").occurrences(of: secret.written),
      "the redacted URL still shows a password libpq would use: \(secret.written)")
  }
  do {
    _ = try PostgresURL(text, origin: "--journal")
    precondition(secrets.isEmpty, "a URL libpq would take a password from was accepted: \(text)")
  } catch {
    precondition(String(describing: error).hasSuffix(": " + (error as! PostgresURLError).reason))
    precondition((error as! PostgresURLError).shown == redacted, "the error shows more than the redacted URL")
  }
  return 0
}

/// Where libpq would take a password from in a URI, written as in the text (`written`: `:value@` or the
/// whole `key=value` parameter); the model is independent of `PostgresURL.redact`. It reads Unicode scalars,
/// as libpq reads bytes: a combining mark after a `/` or `@` does not hide the delimiter (the harness once
/// read Swift characters and took `/` plus U+0650 for part of a password: fuzz-postgres-url's own false alarm).
enum LibpqModel {
  static func secrets(_ text: String) -> [(written: String, value: String)] {
    let scalars = Array(text.unicodeScalars)
    guard let scheme = scalars.end(of: "://") else { return [] }
    var found: [(written: String, value: String)] = []
    var rest = scalars[scheme...]
    if let end = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[end] == "@" {
      let credentials = rest[..<end]
      if let colon = credentials.firstIndex(of: ":") {
        let value = String(String.UnicodeScalarView(credentials[(colon + 1)...]))
        found.append((":" + value + "@", value))
      }
      rest = rest[(end + 1)...]
    }
    guard let query = rest.firstIndex(of: "?") else { return found }
    for item in rest[(query + 1)...].split(separator: "&") {
      let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2 else { continue }
      let key = String(String.UnicodeScalarView(parts[0])).removingPercentEncodingOrSelf.lowercased()
      // As a whole parameter, `&`-terminated (the text gets a final `&`): `password=` must not be found
      // inside the redacted `password=***`.
      if key == "password" || key == "sslpassword" {
        found.append((String(String.UnicodeScalarView(item)) + "&", String(String.UnicodeScalarView(parts[1]))))
      }
    }
    return found
  }
}

extension Array where Element == Unicode.Scalar {
  /// Where `needle` starts, every occurrence, overlapping (scalar by scalar, as libpq reads bytes rather than
  /// Swift characters): the one scan both questions below ask.
  func starts(of needle: String) -> [Int] {
    let pattern = Array(needle.unicodeScalars)
    guard !pattern.isEmpty, count >= pattern.count else { return [] }
    return (0...(count - pattern.count)).filter { self[$0..<($0 + pattern.count)].elementsEqual(pattern) }
  }

  /// The index just past the first occurrence of `needle`, nil if it does not occur.
  func end(of needle: String) -> Int? {
    starts(of: needle).first.map { $0 + needle.unicodeScalars.count }
  }
}

extension String {
  /// How many times `needle` occurs, overlapping, scalar by scalar.
  func occurrences(of needle: String) -> Int { Array(unicodeScalars).starts(of: needle).count }
}

extension String {
  /// Percent-decoded as libpq does (`%XX` → the octet); left as is where that is not valid UTF-8 or malformed.
  var removingPercentEncodingOrSelf: String {
    var bytes: [UInt8] = []
    var utf8 = self.utf8[...]
    while let first = utf8.first {
      utf8 = utf8.dropFirst()
      if first == UInt8(ascii: "%"), utf8.count >= 2,
        let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        utf8 = utf8.dropFirst(2)
      } else {
        bytes.append(first)
      }
    }
    return String(validating: bytes, as: UTF8.self) ?? self
  }
}

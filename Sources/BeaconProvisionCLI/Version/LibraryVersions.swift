import CCrypto
import CCurl
import CLibPQ
import CZip
import GRDBSQLite

/// The versions of the C libraries this binary runs with, asked of each library at run time (so a Debian
/// point release of libcurl shows up without a rebuild). BlueZ's libbluetooth has no version call: its line
/// is the libbluetooth3 package version recorded when the binary was built (`BuildStamp`), and says so.
struct LibraryVersions: Sendable, Equatable {
  var curl: String
  var libzip: String
  var bluez: String
  var sqlite: String
  var libpq: String
  var openSSL: String

  /// Asks each library now.
  static func current() -> LibraryVersions {
    LibraryVersions(
      curl: curl_version_info(bp_curlversion_now).map { String(cString: $0.pointee.version) } ?? "unknown",
      libzip: zip_libzip_version().map { String(cString: $0) } ?? "unknown",
      bluez: BuildStamp.bluezPackage.map {
        "\($0) (libbluetooth3 package at build time: libbluetooth has no version call)"
      }
        ?? "not recorded (libbluetooth has no version call; scripts/package records the libbluetooth3 package version)",
      sqlite: String(cString: sqlite3_libversion()),
      libpq: postgresVersion(PQlibVersion()),
      openSSL: OpenSSL_version(Int32(OPENSSL_VERSION)).map { String(cString: $0) } ?? "unknown")
  }

  /// `PQlibVersion()`'s number as PostgreSQL writes it: 150010 is "15.10" (major × 10000 + minor since
  /// PostgreSQL 10), 90624 is "9.6.24" (major × 10000 + minor × 100 + patch before it).
  static func postgresVersion(_ number: Int32) -> String {
    if number >= 100_000 { return "\(number / 10_000).\(number % 10_000)" }
    return "\(number / 10_000).\(number / 100 % 100).\(number % 100)"
  }

  /// One line per library, name first.
  var lines: [String] {
    [
      "libcurl \(curl)", "libzip \(libzip)", "BlueZ \(bluez)", "SQLite \(sqlite)", "libpq \(libpq)",
      openSSL.hasPrefix("OpenSSL") ? openSSL : "OpenSSL \(openSSL)",
    ]
  }
}

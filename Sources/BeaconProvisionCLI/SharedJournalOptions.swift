import ArgumentParser
import FleetIO
import Foundation

/// `--journal` and the options of a campaign several gateways share (docs/guide/several-gateways.md).
/// Without `--journal` (or `BEACON_PROVISION_JOURNAL`) nothing changes: the SQLite journal in the state
/// directory, one gateway.
struct SharedJournalOptions: ParsableArguments {
  @OptionGroup var location: JournalLocationOptions

  @Option(
    help: ArgumentHelp(
      "This gateway's name in the shared journal (default: the host name).", valueName: "name"))
  var gateway: String?

  @Option(
    help: ArgumentHelp(
      "Run id several gateways share: the first to start creates the run, the others join it with the same profile or package (shared journal only).",
      valueName: "run"))
  var run: String?

  @Option(
    help: "Seconds a gateway's claim on a device lasts without renewal; a gateway that dies loses its devices after it."
  )
  var lease: Double = 30

  @Option(help: "dB by which another gateway must hear a device better for this one to leave it to that one.")
  var gatewayMargin: Int = 6

  @Option(help: "Before its first claim, wait until this many gateways joined the run (at most --settle seconds).")
  var gateways: Int = 1

  @Option(help: "Seconds to wait for --gateways to join.")
  var settle: Double = 60

  func validate() throws {
    try SecondsOption.validate(lease, "--lease", atMost: 3600)
    try SecondsOption.validate(settle, "--settle", zeroAllowed: true, atMost: 3600)
    guard (0...60).contains(gatewayMargin) else { throw ValidationError("--gateway-margin must be 0…60 dB") }
    guard (1...64).contains(gateways) else { throw ValidationError("--gateways must be 1…64") }
    // An empty name would share the run "" or make a gateway nobody can tell apart.
    if let run, run.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError("--run must name the run (e.g. --run site-0412); leave it out for a new run id")
    }
    if let gateway, gateway.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError(
        "--gateway must name this gateway (e.g. --gateway hall-east); leave it out for the host name")
    }
  }

  /// The PostgreSQL URL when one is given; nil: the SQLite journal.
  func postgresURL() throws -> PostgresURL? {
    let url = try location.postgresURL()
    if url == nil, run != nil {
      throw CLIFailure("--run shares a run between gateways: it needs --journal postgresql://…")
    }
    return url
  }

  func password() throws -> String? { try location.password() }

  var gatewayName: String { gateway ?? ProcessInfo.processInfo.hostName }

  var coordination: CoordinationSettings {
    CoordinationSettings(leaseSeconds: lease, rule: NearestGatewayRule(margin: gatewayMargin))
  }
}

/// Where the journal is: `--journal URL` or `BEACON_PROVISION_JOURNAL` for the shared PostgreSQL one, and
/// the password file for it. Shared by the campaigns and `campaign status`.
struct JournalLocationOptions: ParsableArguments {
  static let environmentVariable = "BEACON_PROVISION_JOURNAL"

  @Option(
    help: ArgumentHelp(
      "Put the journal on a PostgreSQL server several gateways share: postgresql://USER@HOST/DB (or $BEACON_PROVISION_JOURNAL). "
        + "The password comes from PGPASSWORD, ~/.pgpass or --journal-password-file, never the URL. Default: the SQLite "
        + "journal in the state directory.", valueName: "url"))
  var journal: String?

  @Option(
    help: ArgumentHelp("A file holding the PostgreSQL password (first line; mode 0600 advised).", valueName: "file"))
  var journalPasswordFile: String?

  /// The PostgreSQL URL when one is given (flag first, then the environment); nil: the SQLite journal.
  func postgresURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgresURL? {
    let (text, origin): (String?, String) =
      journal.map { ($0, "--journal") } ?? (
        environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }, Self.environmentVariable
      )
    guard let text else { return nil }
    do { return try PostgresURL(text, origin: origin) } catch { throw CLIFailure("\(error)") }
  }

  /// The password from `--journal-password-file` (its first line); nil lets libpq use PGPASSWORD or ~/.pgpass.
  func password() throws -> String? {
    guard let journalPasswordFile else { return nil }
    let data: Data
    do { data = try InputFile.read(journalPasswordFile, limit: .smallText) } catch {
      throw CLIFailure("--journal-password-file: \(error)")
    }
    let line =
      String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
    guard !line.isEmpty else {
      throw CLIFailure("--journal-password-file \(journalPasswordFile): the first line is empty")
    }
    return String(line)
  }
}

extension JournalLocationOptions {
  /// Connects to the shared journal (migrating its schema), as gateway `gateway`; nil without a URL. Every
  /// failure names the server by its redacted URL.
  func openShared(gateway: String) async throws -> PostgresJournal? {
    guard let url = try postgresURL() else { return nil }
    let secret = try await BlockingIO.run { try self.password() }
    do {
      return try await PostgresJournal(
        connection: try await PostgresConnection.connect(url, password: secret), gateway: gateway)
    } catch {
      throw CLIFailure("cannot open the shared journal: \(error)")
    }
  }
}

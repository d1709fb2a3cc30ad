import Testing

@testable import FleetIO

/// `PostgresURL`: what `--journal` accepts, and that no password ever shows.
@Suite(.timeLimit(.minutes(5))) struct PostgresURLTests {
  @Test func redactsTheUserPasswordAndPasswordParameters() {
    #expect(
      PostgresURL.redact("postgresql://ops:s3cret@db.site:5432/fleet") == "postgresql://ops:***@db.site:5432/fleet")
    #expect(
      PostgresURL.redact("postgres://db/fleet?sslmode=require&password=s3cret&user=ops")
        == "postgres://db/fleet?sslmode=require&password=***&user=ops")
    // An `@` in the path or query is not the authority's.
    #expect(
      PostgresURL.redact("postgresql://db/fleet?application_name=a@b") == "postgresql://db/fleet?application_name=a@b")
    #expect(PostgresURL.redact("postgresql://ops@db/fleet") == "postgresql://ops@db/fleet")
  }

  /// As libpq reads a URI (found by fuzz-postgres-url's libpq model): credentials run to the first `@` before a
  /// `/` even across a `?`; query keys are percent-decoded; `sslpassword` is a secret too.
  /// Found by the fuzzer (fuzz-postgres-url): a combining mark after the scheme's `//` made one Swift character of
  /// `/` and the mark, so the scheme was not seen and the password parameter was shown as it was.
  @Test func aCombiningMarkAfterADelimiterHidesNoPassword() throws {
    let text = "postgresql://\u{347}postgresql://h/db?pass%77ord=s3cret"
    #expect(PostgresURL.isPostgres(text))
    #expect(!PostgresURL.redact(text).contains("s3cret"))
    #expect(!PostgresURL.redact("postgresql://u:s3cret@\u{347}h/db").contains("s3cret"))
    #expect(!PostgresURL.redact("postgresql://h/db?password=\u{347}s3cret").contains("s3cret"))
    #expect(throws: PostgresURLError.self) { try PostgresURL(text, origin: "--journal") }
  }

  /// libpq's credentials end at the first `@` before any `/`, byte by byte, so in
  /// `postgresql://bp:Zm9v/YmFy@db/site` it reads a host `bp` and a port `Zm9v` and shows them in its error.
  /// A `user:` before any `/` is taken to begin credentials that run to the last `@` before the query: the
  /// password is hidden and the URL refused (more hidden, never less), a combining mark after the `/` or not.
  @Test func aPasswordHoldingASlashIsHiddenAndRefused() throws {
    for (text, shown) in [
      ("postgresql://bp:Zm9v/YmFy@db/site", "postgresql://bp:***@db/site"),
      ("postgresql://postgresql:/\u{650}ther@db/x", "postgresql://postgresql:***@db/x"),
      ("postgresql://u:pw@\u{650}db/x", "postgresql://u:***@\u{650}db/x"),
    ] {
      #expect(PostgresURL.redact(text) == shown)
      #expect(throws: PostgresURLError.self) { try PostgresURL(text, origin: "--journal") }
    }
    // No user name before the first `/` (none, or a host and its port): an `@` in the path or query is not
    // the end of credentials.
    for plain in [
      "postgresql:///site?host=/run/postgresql&application_name=a:b@c",
      "postgresql://db.example:5432/beacons?user=svc@tenant", "postgresql://db.example:5432/team@site",
    ] {
      #expect(PostgresURL.redact(plain) == plain)
      #expect(try PostgresURL(plain, origin: "--journal").text == plain)
    }
  }

  @Test func redactsWhatLibpqWouldTakeForAPassword() {
    #expect(PostgresURL.redact("postgresql://u:pw?x@h/db") == "postgresql://u:***@h/db")
    #expect(PostgresURL.redact("postgresql://u?x@h/db?password=s3cret") == "postgresql://u?x@h/db?password=***")
    #expect(PostgresURL.redact("postgresql://h/db?pass%77ord=s3cret") == "postgresql://h/db?password=***")
    #expect(
      PostgresURL.redact("postgresql://h/db?sslpassword=k3y&sslmode=verify-full")
        == "postgresql://h/db?sslpassword=***&sslmode=verify-full")
    // A password parameter's value runs to the next `&` (a `?` in it is part of it), and parameters after
    // hidden credentials are still found.
    #expect(
      PostgresURL.redact("postgresql://h/db?password=a?b&sslmode=require")
        == "postgresql://h/db?password=***&sslmode=require")
    #expect(PostgresURL.redact("postgresql://u:pw?x@h?password=s3cret") == "postgresql://u:***@h?password=***")
    // No `/`: libpq takes everything up to the `@` for user:password, and so do we.
    #expect(PostgresURL.redact("postgresql://h?application_name=a:b@c") == "postgresql://h?application_name=a:***@c")
  }

  @Test func refusesAPasswordInTheURLWithoutPrintingIt() throws {
    for text in [
      "postgresql://ops:s3cret@db/fleet", "postgresql://db/fleet?PASSWORD=s3cret", "postgresql://ops:s3cret?x@db",
      "postgresql://db/fleet?pass%77ord=s3cret",
    ] {
      let error = #expect(throws: PostgresURLError.self) { try PostgresURL(text, origin: "--journal") }
      let message = try #require(error).description
      #expect(message.hasPrefix("--journal "))
      #expect(message.contains("PGPASSWORD"))
      #expect(!message.contains("s3cret"))
    }
  }

  /// A libpq keyword/value string is not a URL and is refused, but its password never shows
  /// (`--journal "host=… password=…"` was once echoed whole).
  @Test func redactsAKeywordValueStringAndRefusesIt() throws {
    #expect(PostgresURL.redact("host=db.site password=s3cret dbname=fleet") == "host=db.site password=*** dbname=fleet")
    #expect(PostgresURL.redact("host=db password = 'a b\\' c' user=ops") == "host=db password = *** user=ops")
    #expect(PostgresURL.redact("sslpassword=k3y PASSWORD=x\\ y") == "sslpassword=*** PASSWORD=***")
    #expect(PostgresURL.redact("host=db user=ops") == "host=db user=ops")
    #expect(
      PostgresURL.redact("/var/lib/beacon-provision/journal.sqlite") == "/var/lib/beacon-provision/journal.sqlite")
    let error = #expect(throws: PostgresURLError.self) {
      try PostgresURL("host=db password=s3cret", origin: "--journal")
    }
    let message = try #require(error).description
    #expect(message == "--journal host=db password=***: expected a URL starting with postgresql:// or postgres://")
  }

  /// libpq matches the scheme case-sensitively and would read `POSTGRESQL://…` as a database name on the local
  /// socket: the scheme reaches libpq in lower case, the rest as written.
  @Test func anUpperCaseSchemeReachesLibpqInLowerCase() throws {
    #expect(
      try PostgresURL("POSTGRESQL://ops@DB.site/Fleet", origin: "--journal").text == "postgresql://ops@DB.site/Fleet")
    #expect(try PostgresURL("Postgres://db/fleet", origin: "--journal").redacted == "postgres://db/fleet")
    #expect(throws: PostgresURLError.self) { try PostgresURL("POSTGRESQL://ops:s3cret@db/fleet", origin: "--journal") }
  }

  @Test func acceptsBothSchemesAndRefusesOthersNamingTheOrigin() throws {
    #expect(
      try PostgresURL("postgresql:///fleet?host=/run/pg", origin: "--journal").text
        == "postgresql:///fleet?host=/run/pg")
    #expect(try PostgresURL("postgres://ops@db/fleet", origin: "--journal").redacted == "postgres://ops@db/fleet")
    let error = #expect(throws: PostgresURLError.self) {
      try PostgresURL("mysql://db/fleet", origin: "BEACON_PROVISION_JOURNAL")
    }
    #expect(
      error?.description
        == "BEACON_PROVISION_JOURNAL mysql://db/fleet: expected a URL starting with postgresql:// or postgres://")
    #expect(PostgresURL.isPostgres("POSTGRESQL://db") && !PostgresURL.isPostgres("/var/lib/journal.sqlite"))
  }
}

import ArgumentParser
import HTTP

/// The HTTP options every command that fetches takes (`firmware …`, `dfu update --firmware`), turned into
/// the libcurl client's configuration. TLS is verified against the system's CAs unless `--cacert` names a
/// private CA; turning verification off needs the loudly named `--insecure-skip-tls-verify`. Proxies come from
/// the usual environment variables (`https_proxy`, `http_proxy`, `ALL_PROXY`, `NO_PROXY`), read by libcurl.
struct NetworkOptions: ParsableArguments {
  @OptionGroup var tls: TLSOptions

  @Option(
    name: .customLong("connect-timeout"),
    help: ArgumentHelp("Seconds to wait for a connection (default 30).", valueName: "s"))
  var connectTimeout: Double = 30

  @Option(
    name: .customLong("max-time"),
    help: ArgumentHelp(
      "Seconds one fetch or download may take in all, retries included (default 3600).", valueName: "s"))
  var maxTime: Double = 3600

  func validate() throws {
    try SecondsOption.validate(connectTimeout, "--connect-timeout")
    try SecondsOption.validate(maxTime, "--max-time")
  }

  /// The client these options describe, with the tool's version in its User-Agent.
  var client: CurlHTTPClient {
    CurlHTTPClient(
      configuration: HTTPClientConfiguration(
        caFile: tls.caFile, insecureSkipTLSVerify: tls.insecureSkipTLSVerify,
        connectTimeout: SecondsOption.duration(connectTimeout),
        maxTime: SecondsOption.duration(maxTime),
        userAgent: HTTPClientConfiguration.userAgent(version: BuildStamp.version)))
  }
}

/// How a server's certificate is checked: against the system's CAs, a private CA's PEM file (`--cacert`), or —
/// loudly named — not at all. Part of `NetworkOptions`, and on its own where other limits apply (`monitor`'s
/// webhooks).
struct TLSOptions: ParsableArguments {
  @Option(
    name: .customLong("cacert"),
    help: ArgumentHelp(
      "A PEM file of CA certificates to trust instead of the system's (a private CA).", valueName: "file"))
  var caFile: String?

  @Flag(
    name: .customLong("insecure-skip-tls-verify"),
    help: ArgumentHelp(
      "Do not verify the server's certificate or host name. Only for a test server: anyone on the path could read or forge the traffic."
    ))
  var insecureSkipTLSVerify = false
}

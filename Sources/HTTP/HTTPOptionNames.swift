/// The command-line options an HTTP error's hint may name, as the command that made the client spells them:
/// a hint that says "raise --max-time" to a user of `resolve`, which has no such option, sends them looking
/// for something that is not there. A nil name leaves that part of the hint out.
public struct HTTPOptionNames: Sendable, Hashable {
  /// The option that gives the server's base URL (`--catalog`, `--info-manager`).
  public var baseURL: String?
  /// The option that raises the overall time cap.
  public var maxTime: String?
  /// The option that raises the connect timeout.
  public var connectTimeout: String?
  /// The option that names a CA file to trust.
  public var caFile: String?
  /// The option that turns TLS verification off (test servers only).
  public var insecureSkipTLSVerify: String?

  public init(
    baseURL: String? = nil, maxTime: String? = nil, connectTimeout: String? = nil, caFile: String? = nil,
    insecureSkipTLSVerify: String? = nil
  ) {
    self.baseURL = baseURL
    self.maxTime = maxTime
    self.connectTimeout = connectTimeout
    self.caFile = caFile
    self.insecureSkipTLSVerify = insecureSkipTLSVerify
  }

  /// The firmware commands' options (`firmware`, `dfu update --catalog`).
  public static let firmware = HTTPOptionNames(
    baseURL: "--catalog", maxTime: "--max-time", connectTimeout: "--connect-timeout", caFile: "--cacert",
    insecureSkipTLSVerify: "--insecure-skip-tls-verify")

  /// "raise --max-time or try again later", or "try again later" when there is no such option.
  var timedOutHint: String { maxTime.map { "raise \($0) or try again later" } ?? "try again later" }

  var connectHint: String {
    "check the address and the network" + (connectTimeout.map { ", or raise \($0)" } ?? "")
  }

  var tlsHint: String {
    let trust = caFile.map { "trust the server's CA with \($0) FILE" } ?? "the server's certificate is not trusted"
    return trust + (insecureSkipTLSVerify.map { "; \($0) only for a test server" } ?? "")
  }

  var caFileHint: String { "check the \(caFile ?? "CA") file: it must be readable PEM" }

  var notFoundHint: String {
    "the file is not there: check the base URL" + (baseURL.map { " (\($0))" } ?? "") + " and the file name"
  }
}

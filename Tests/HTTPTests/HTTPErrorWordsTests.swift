import Testing

@testable import HTTP

/// An HTTP error says what the server said and names only options the calling command has: `resolve`'s
/// hints named `--max-time`, `--catalog` and `--insecure-skip-tls-verify`, which it does not have.
@Suite(.timeLimit(.minutes(1))) struct HTTPErrorWordsTests {
  static let infoManager = HTTPOptionNames(
    baseURL: "--info-manager", maxTime: "--info-manager-timeout", connectTimeout: "--info-manager-timeout",
    caFile: "--cacert")

  @Test func hintsNameTheCallersOptionsOrNone() {
    let words = [
      HTTPClientError.hint(forStatus: 404, names: Self.infoManager) ?? "", Self.infoManager.timedOutHint,
      Self.infoManager.connectHint, Self.infoManager.tlsHint, Self.infoManager.caFileHint,
    ]
    #expect(
      words == [
        "the file is not there: check the base URL (--info-manager) and the file name",
        "raise --info-manager-timeout or try again later",
        "check the address and the network, or raise --info-manager-timeout",
        "trust the server's CA with --cacert FILE",
        "check the --cacert file: it must be readable PEM",
      ])
    let none = HTTPOptionNames()
    #expect(none.timedOutHint == "try again later" && none.tlsHint == "the server's certificate is not trusted")
    #expect(
      HTTPClientError.hint(forStatus: 404) == "the file is not there: check the base URL (--catalog) and the file name")
    #expect(HTTPOptionNames.firmware.tlsHint.hasSuffix("; --insecure-skip-tls-verify only for a test server"))
  }

  @Test func theServersOwnMessageIsReadFromCommonErrorShapes() {
    func message(_ text: String) -> String? { HTTPClientError.serverMessage(Array(text.utf8)) }
    #expect(message(#"{"error": {"code": 400, "message": "API key not valid."}}"#) == "API key not valid.")
    #expect(message(#"{"error": "quota exceeded"}"#) == "quota exceeded")
    #expect(message(#"{"message": "no such account"}"#) == "no such account")
    #expect(message("Service down for maintenance\nback at 10:00") == "Service down for maintenance")
    #expect(message("<html><body><h1>404</h1></body></html>") == nil)
    #expect(message("") == nil && message(#"{"error": {"code": 500}}"#) == nil)
    // Control characters never reach the terminal; a long message is cut.
    #expect(message("bad \u{1b}]0;pwned\u{07} key") == "bad  ]0;pwned  key")
    #expect(message(String(repeating: "x", count: 500))?.count == 201)
    #expect(HTTPClientError.serverMessage([0xff, 0xfe, 0x00]) == nil)
  }
}

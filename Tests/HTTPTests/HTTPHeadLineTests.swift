import HTTP
import Testing

/// `HTTPHeadLine` and `HTTPContentRange` (RFC 9112 §4–5, RFC 9110 §14.4) on the raw lines libcurl's header
/// callback hands over, CRLF included; the last two tests hold inputs the fuzzer (scripts/fuzz http) feeds.
@Suite("HTTP head lines", .timeLimit(.minutes(1)))
struct HTTPHeadLineTests {
  func line(_ text: String) -> HTTPHeadLine { HTTPHeadLine(Array(text.utf8)) }

  @Test func statusLinesOfEveryVersionGiveTheirCode() {
    #expect(line("HTTP/1.1 206 Partial Content\r\n") == .status(206))
    #expect(line("HTTP/2 304\r\n") == .status(304))
    #expect(line("HTTP/1.0 200 OK") == .status(200))
  }

  @Test func aStatusThatIsNotThreeDigitsReadsAsZero() {
    #expect(line("HTTP/1.1 2000 Huge\r\n") == .status(0))
    #expect(line("HTTP/1.1 ２００ OK\r\n") == .status(0))  // full-width digits are numbers to Swift, not to HTTP
    #expect(line("HTTP/1.1\r\n") == .status(0))
  }

  @Test func fieldLinesAreTrimmedAndKeepColonsInTheirValue() {
    #expect(line("ETag: \"abc\"\r\n") == .field(HTTPHeader("ETag", "\"abc\"")))
    #expect(line("Location:  http://h:8080/x \r\n") == .field(HTTPHeader("Location", "http://h:8080/x")))
    #expect(line("X-Empty:\r\n") == .field(HTTPHeader("X-Empty", "")))
  }

  @Test func blankFoldedAndNamelessLinesAreIgnored() {
    #expect(line("\r\n") == .other)
    #expect(line(" folded: value\r\n") == .other)
    #expect(line(": no name\r\n") == .other)
    #expect(line("garbage\r\n") == .other)
  }

  @Test func bytesThatAreNotUTF8AreReplacedNotTrusted() {
    #expect(HTTPHeadLine([0x45, 0x3A, 0x20, 0xFF, 0xFE, 0x0D, 0x0A]) == .field(HTTPHeader("E", "\u{FFFD}\u{FFFD}")))
    #expect(HTTPHeadLine([0x48, 0x54, 0x54, 0x50, 0x2F, 0xC3]) == .status(0))
  }

  @Test func contentRangeStartsAtItsFirstBytePosition() {
    #expect(HTTPContentRange.start("bytes 100-199/200") == 100)
    #expect(HTTPContentRange.start(" Bytes 0-9/*") == 0)
    #expect(HTTPContentRange.start("bytes */200") == nil)
    #expect(HTTPContentRange.start("items 1-2/3") == nil)
    #expect(HTTPContentRange.start("bytes ") == nil)
  }

  @Test func aRangeStartPastInt64IsNotARangeWeCanResumeAt() {
    #expect(HTTPContentRange.start("bytes 99999999999999999999-1/2") == nil)
    #expect(HTTPContentRange.start("bytes ٣-4/5") == nil)  // Arabic-Indic digits
  }
}

/// The User-Agent the tool sends is one header line whatever the version text holds.
@Suite(.timeLimit(.minutes(1))) struct UserAgentTests {
  @Test func aVersionOfSeveralLinesGivesItsFirstTokenOnly() {
    #expect(HTTPClientConfiguration.userAgent(version: "dev") == "beacon-provision/dev")
    #expect(
      HTTPClientConfiguration.userAgent(version: "0.1.0~git648.6d54a8b-1") == "beacon-provision/0.1.0~git648.6d54a8b-1")
    #expect(
      HTTPClientConfiguration.userAgent(version: "beacon-provision dev\ncommit unknown\r\nlibraries:")
        == "beacon-provision/beacon-provision")
  }
}

import Foundation
import Testing

@testable import HTTP

@Suite(.timeLimit(.minutes(2))) struct HTTPDateTests {
  @Test(arguments: [
    ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)),  // RFC 9110 §5.6.7's own example
    ("Wed, 21 Oct 2015 07:28:00 GMT", 1_445_412_480),  // RFC 9110 §10.2.3's Retry-After example
    ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
    ("Tue, 29 Feb 2000 23:59:60 GMT", 951_868_800),  // a leap day of a 400-year, and a leap second
    ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
  ])
  func readsIMFFixdates(text: String, seconds: Int64) {
    #expect(HTTPDate.secondsSince1970(text) == seconds)
  }

  @Test(arguments: [
    "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850: obsolete, not accepted
    "Sun Nov  6 08:49:37 1994",  // asctime
    "Sun, 06 Nov 1994 08:49:37 UTC",
    "Sun, 6 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 24:00:00 GMT",
    "Sun, 06 Nov 1994 08:60:00 GMT",
    "Mon, 29 Feb 1900 00:00:00 GMT",  // 1900 is not a leap year
    "Mon, 31 Apr 2024 00:00:00 GMT",
    "Xyz, 06 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 08:49:37 GMT ",
    "Sun, 0٦ Nov 1994 08:49:37 GMT",  // a non-ASCII digit
    "",
  ])
  func refusesAnythingElse(text: String) {
    #expect(HTTPDate.secondsSince1970(text) == nil)
  }

  @Test func retryAfterDatesAreAWaitFromNowAndNeverNegative() {
    let now = Date(timeIntervalSince1970: 1_445_412_480 - 90)
    #expect(HTTPRetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(90))
    #expect(HTTPRetryPolicy.retryAfter("Thu, 01 Jan 1970 00:00:00 GMT", now: now) == .zero)
    #expect(HTTPRetryPolicy.retryAfter("soon", now: now) == nil)
  }
}

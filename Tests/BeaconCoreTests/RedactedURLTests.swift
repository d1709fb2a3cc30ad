import BeaconCore
import Testing

/// What a URL shows in messages (`RedactedURL`) and which webhook URLs are refused (`WebhookURL`) when the
/// password itself holds `?`, `#`, `/` or `@`: cutting the URL at its query or path first left such a
/// password in the text.
@Suite(.timeLimit(.minutes(1))) struct RedactedURLTests {
  @Test(arguments: [
    ("https://hook:S3c?ret@recv.example/in", "https://recv.example/in", ["hook", "S3c?ret"]),
    ("https://hook:S3c#ret@recv.example/in", "https://recv.example/in", ["hook", "S3c#ret"]),
    ("https://hook:8443?x@recv.example/in", "https://recv.example/in", ["hook", "8443?x"]),
    ("https://user:pa/ss@host/path", "https://host/path", ["user", "pa/ss"]),
    ("https://user:p@ss@host/path", "https://host/path", ["user", "p@ss"]),
    ("https://user:pw@host/p?token=abc", "https://host/p?token=REDACTED", ["user", "pw", "abc"]),
  ])
  func aPasswordHoldingURLCharactersIsHidden(url: String, shown: String, secrets: [String]) {
    let redacted = RedactedURL(url)
    #expect(redacted.description == shown)
    #expect(redacted.secrets == secrets)
  }

  /// An `@` that is not in a userinfo stays: in a path or a query after one, or after a port and a path.
  @Test(arguments: [
    "https://host/path?email=a@b.example", "https://host:8443/p?e=a@b", "https://host?e=a@b",
    "https://catalogue.example/kkm/", "http://[::1]:8080/x", "http://[fd00::1]:8080/hook@v2",
  ])
  func aURLWithoutUserinfoIsShownAsItIs(url: String) {
    #expect(RedactedURL(url).description == url)
    #expect(RedactedURL(url).secrets.isEmpty)
  }

  /// An `@` in a query after the host is an address, not a password: the webhook is accepted.
  @Test(arguments: ["https://hooks.example?to=ops@example.com", "https://hooks.example/in?to=ops@example.com"])
  func aWebhookWithAnAddressInItsQueryIsAccepted(url: String) {
    #expect(WebhookURL.problem(url) == nil)
  }

  @Test(arguments: [
    "https://hook:S3c?ret@recv.example/in", "https://hook:8443?x@recv.example/in", "https://hook:S3c#ret@recv/in",
  ])
  func aWebhookWithAPasswordIsRefusedWithoutShowingIt(url: String) throws {
    let problem = try #require(WebhookURL.problem(url))
    #expect(problem.contains("user or password"), "\(problem)")
    #expect(!problem.contains("S3c") && !problem.contains("?x@") && !problem.contains("ret"), "\(problem)")
  }
}

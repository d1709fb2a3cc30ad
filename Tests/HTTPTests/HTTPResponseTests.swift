import HTTP
import Testing

@Suite("HTTP response headers and validators", .timeLimit(.minutes(1)))
struct HTTPResponseTests {
  @Test func headerLookupIsCaseInsensitiveAndTakesTheLastValue() {
    let response = HTTPResponse(
      status: 200,
      headers: [
        HTTPHeader("etag", "\"a\""), HTTPHeader("Content-Type", "application/json"), HTTPHeader("ETag", "\"b\""),
      ],
      effectiveURL: "https://example.invalid/catalog.json")
    #expect(response.header("ETAG") == "\"b\"")
    #expect(response.header("content-type") == "application/json")
    #expect(response.header("Last-Modified") == nil)
  }

  @Test func validatorsComeFromETagAndLastModified() {
    let response = HTTPResponse(
      status: 200,
      headers: [HTTPHeader("Last-Modified", "Tue, 03 Nov 2026 10:00:00 GMT"), HTTPHeader("ETag", "W/\"7\"")],
      effectiveURL: "http://127.0.0.1/x")
    #expect(response.validators == HTTPValidators(etag: "W/\"7\"", lastModified: "Tue, 03 Nov 2026 10:00:00 GMT"))
    #expect(!response.validators.isEmpty)
    #expect(HTTPResponse(status: 200, effectiveURL: "x").validators.isEmpty)
    #expect(HTTPResponse(status: 304, effectiveURL: "x").isNotModified)
  }
}

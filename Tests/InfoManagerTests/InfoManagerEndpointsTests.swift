import JSON
import KBeacon
import Testing

@testable import InfoManager

/// The request shapes (InfoManagerEndpoints, docs/protocols/info-manager.md): paths under `/_ah/api`, the API key as
/// `?key=`, the `GetBlukiisInfoData` body of one batch.
@Suite(.timeLimit(.minutes(2))) struct InfoManagerEndpointsTests {
  @Test func theBatchRequestCarriesEveryIDInOneBody() throws {
    let endpoints = InfoManagerEndpoints(root: "https://im.example.org/", apiKey: "k+y/1")
    let call = endpoints.getBlukiisInfo(ids: ["B10001", "B10002"], appLabel: "blukii", deviceId: "gw-1")
    #expect(call.method == .post)
    #expect(call.url == "https://im.example.org/_ah/api/mobileclient/v1/getBlukiisInfo?key=k%2By%2F1")
    let body = try JSONParser.parse(call.body)
    #expect(
      body
        == .object([
          "appLabel": .string("blukii"), "blukiiIds": .array([.string("B10001"), .string("B10002")]),
          "blukiis": .array([.object(["id": .string("B10001")]), .object(["id": .string("B10002")])]),
          "deviceId": .string("gw-1"),
        ]))
  }

  @Test func newsAndLoginPaths() throws {
    // A root given with its /_ah/api suffix is the same server.
    let endpoints = InfoManagerEndpoints(root: "http://127.0.0.1:8080/base/_ah/api", apiKey: nil)
    #expect(endpoints.root == "http://127.0.0.1:8080/base")
    let news = endpoints.getNews(languageCode: "en-gb")
    #expect(
      news.method == .get && news.url == "http://127.0.0.1:8080/base/_ah/api/mobileclient/v1/getNews/en-gb"
        && news.body.isEmpty)
    let login = endpoints.getToken(user: "ops", password: "p\"w")
    #expect(login.url == "http://127.0.0.1:8080/base/_ah/api/auth/v1/getToken")
    #expect(try JSONParser.parse(login.body) == .object(["user": .string("ops"), "password": .string("p\"w")]))
    #expect(InfoManagerEndpoints.authorization(token: "t").value == "Bearer t")
  }
}

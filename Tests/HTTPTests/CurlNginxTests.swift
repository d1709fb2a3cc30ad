import Foundation
import HTTP
import Synchronization
import TestServers
import Testing

/// The libcurl client against Debian's nginx over HTTP and HTTPS with a private CA.
@Suite("libcurl client against nginx", .timeLimit(.minutes(3)))
struct CurlNginxTests {
  static let catalogue = #"{"V1.0":[{"appVersion":"V5.14","appFileName":"app.zip","note":"fixes"}]}"#

  func site() throws -> String {
    let root = try LocalTools.temporaryDirectory("www")
    try Data(Self.catalogue.utf8).write(to: URL(fileURLWithPath: root + "/KBPro.json"))
    try Data(FaultServer.body).write(to: URL(fileURLWithPath: root + "/app.zip"))
    return root
  }

  @Test func httpsWithThePrivateCAIsTrustedAndRefusedWithoutIt() async throws {
    let certificate = try await TestCA.make(in: try LocalTools.temporaryDirectory("ca"))
    let nginx = try await Nginx.start(root: try site(), certificate: certificate)
    let url = "https://127.0.0.1:\(nginx.httpsPort!)/KBPro.json"
    var trusting = CurlFaultTests.quick
    trusting.caFile = certificate.caCertificate
    let response = try await CurlHTTPClient(configuration: trusting).fetch(HTTPRequest(url: url))
    #expect(String(decoding: response.body, as: UTF8.self) == Self.catalogue)

    do {
      _ = try await CurlHTTPClient(configuration: CurlFaultTests.quick).fetch(HTTPRequest(url: url))
      Issue.record("an unknown CA was trusted")
    } catch let error as HTTPClientError {
      #expect(error.kind == .tls)
      #expect(error.description.contains("--cacert"))
    }

    var insecure = CurlFaultTests.quick
    insecure.insecureSkipTLSVerify = true
    #expect(try await CurlHTTPClient(configuration: insecure).fetch(HTTPRequest(url: url)).status == 200)
  }

  @Test func aPackageDownloadsOverHTTPSIntoAFile() async throws {
    let certificate = try await TestCA.make(in: try LocalTools.temporaryDirectory("ca"))
    let nginx = try await Nginx.start(root: try site(), certificate: certificate)
    var configuration = CurlFaultTests.quick
    configuration.caFile = certificate.caCertificate
    let file = try LocalTools.temporaryDirectory("dl") + "/app.zip"
    let reports = ProgressLog()
    let response = try await CurlHTTPClient(configuration: configuration).download(
      HTTPRequest(url: "https://127.0.0.1:\(nginx.httpsPort!)/app.zip"), to: file, progress: { reports.add($0) })
    #expect(response.bytesWritten == Int64(FaultServer.body.count))
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == FaultServer.body)
  }

  @Test func aGzipEncodedCatalogueIsDecodedAndAnUnchangedOneIs304() async throws {
    let nginx = try await Nginx.start(root: try site())
    let client = CurlHTTPClient(configuration: CurlFaultTests.quick)
    let url = "http://127.0.0.1:\(nginx.httpPort)/KBPro.json"
    let first = try await client.fetch(HTTPRequest(url: url))
    #expect(first.header("Content-Encoding") == "gzip")
    #expect(String(decoding: first.body, as: UTF8.self) == Self.catalogue)
    #expect(!first.validators.isEmpty)
    let second = try await client.fetch(HTTPRequest(url: url, conditional: first.validators))
    #expect(second.isNotModified)
  }

  /// A URL whose scheme does not match the port says so: http:// to the TLS port answered only "HTTP 400", and
  /// https:// to the plain port hinted at --cacert, which cannot help.
  @Test func aSchemeThatDoesNotMatchThePortSaysSo() async throws {
    let certificate = try await TestCA.make(in: try LocalTools.temporaryDirectory("ca"))
    let nginx = try await Nginx.start(root: try site(), certificate: certificate)
    var configuration = CurlFaultTests.quick
    configuration.caFile = certificate.caCertificate
    let client = CurlHTTPClient(configuration: configuration)
    do {
      _ = try await client.fetch(HTTPRequest(url: "http://127.0.0.1:\(nginx.httpsPort!)/KBPro.json"))
      Issue.record("plain HTTP to the TLS port succeeded")
    } catch let error as HTTPClientError {
      #expect(error.status == 400 && error.description.contains("use an https:// URL"), "\(error)")
    }
    do {
      _ = try await client.fetch(HTTPRequest(url: "https://127.0.0.1:\(nginx.httpPort)/KBPro.json"))
      Issue.record("TLS to the plain port succeeded")
    } catch let error as HTTPClientError {
      #expect(error.kind == .tls && error.description.contains("speaks plain HTTP"), "\(error)")
      #expect(!error.description.contains("--cacert"))
    }
  }

  @Test func aRedirectFromHTTPSToHTTPIsRefused() async throws {
    let certificate = try await TestCA.make(in: try LocalTools.temporaryDirectory("ca"))
    let nginx = try await Nginx.start(root: try site(), certificate: certificate) { httpPort in
      "location = /moved.json { return 302 http://127.0.0.1:\(httpPort)/KBPro.json; }"
    }
    var configuration = CurlFaultTests.quick
    configuration.caFile = certificate.caCertificate
    do {
      _ = try await CurlHTTPClient(configuration: configuration).fetch(
        HTTPRequest(url: "https://127.0.0.1:\(nginx.httpsPort!)/moved.json"))
      Issue.record("an https → http redirect was followed")
    } catch let error as HTTPClientError {
      #expect(error.kind == .redirect, "\(error)")
    }
  }
}

/// Progress reports collected from the transfer thread.
final class ProgressLog: Sendable {
  private let reports = Mutex<[HTTPTransferProgress]>([])
  func add(_ report: HTTPTransferProgress) { reports.withLock { $0.append(report) } }
  var all: [HTTPTransferProgress] { reports.withLock { $0 } }
}

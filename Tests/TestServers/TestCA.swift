import Foundation

/// A private CA and a server certificate for 127.0.0.1, made with the `openssl` command, for the HTTPS tests
/// of the HTTP client (TLS verified by default, `--cacert` for a private CA).
public enum TestCA {
  public struct ServerCertificate: Sendable {
    public var caCertificate: String
    public var certificate: String
    public var key: String
  }

  public static func make(in directory: String) async throws -> ServerCertificate {
    let openssl = "/usr/bin/openssl"
    let d = directory
    try await LocalTools.run(
      openssl,
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/ca.key", "-out", "\(d)/ca.pem", "-days", "2",
        "-subj", "/CN=beacon-provision test CA",
      ])
    try await LocalTools.run(
      openssl,
      [
        "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/server.key", "-out", "\(d)/server.csr", "-subj",
        "/CN=127.0.0.1",
      ])
    try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: "\(d)/san.ext", atomically: true, encoding: .utf8)
    try await LocalTools.run(
      openssl,
      [
        "x509", "-req", "-in", "\(d)/server.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key", "-CAcreateserial",
        "-out", "\(d)/server.pem", "-days", "2", "-extfile", "\(d)/san.ext",
      ])
    return ServerCertificate(caCertificate: "\(d)/ca.pem", certificate: "\(d)/server.pem", key: "\(d)/server.key")
  }
}

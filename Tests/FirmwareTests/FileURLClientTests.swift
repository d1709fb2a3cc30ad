import Cloud
import FirmwareStore
import Foundation
import Testing

/// `file://` catalogues read from the file system: 200 with the file's bytes and its modification time as
/// Last-Modified, 304 when that validator still matches, an error naming a missing file, the size cap.
@Suite("file:// client", .timeLimit(.minutes(1))) struct FileURLClientTests {
  @Test func readsConditionallyAndDownloads() async throws {
    let folder = NSTemporaryDirectory() + "file-client-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/M.json"))
    let client = FileURLClient()
    let first = try await client.fetch(HTTPRequest(url: "file://\(folder)/M.json"))
    #expect(first.status == 200 && first.body == Array("{}".utf8))
    let validators = first.validators
    #expect(validators.lastModified != nil)
    #expect(try await client.fetch(HTTPRequest(url: "file://\(folder)/M.json", conditional: validators)).isNotModified)
    await #expect(throws: FirmwareStoreError.self) { try await client.fetch(HTTPRequest(url: "file://\(folder)/none.json")) }
    await #expect(throws: FirmwareStoreError.self) { try await client.fetch(HTTPRequest(url: "file://\(folder)/M.json", maxBodyBytes: 1)) }
    await #expect(throws: FirmwareStoreError.self) { try await client.fetch(HTTPRequest(url: "http://example.invalid/M.json")) }
    let written = try await client.download(HTTPRequest(url: "file://\(folder)/M.json"), to: folder + "/copy", progress: nil)
    #expect(written.bytesWritten == 2 && FileManager.default.contents(atPath: folder + "/copy") == Data("{}".utf8))
  }
}

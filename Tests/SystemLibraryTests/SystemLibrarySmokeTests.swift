import CBlueZ
import CCrypto
import CCurl
import CZip
import Foundation
import Testing

/// Proves each C library is linked and callable (not just that its header parses).
@Suite(.timeLimit(.minutes(1))) struct SystemLibrarySmokeTests {
  @Test func libbluetoothConvertsAddresses() {
    var address = bdaddr_t()
    #expect(str2ba("DD:34:02:06:D0:6C", &address) == 0)
    // bdaddr_t is little-endian: the last printed octet comes first.
    #expect(address.b.0 == 0x6C && address.b.5 == 0xDD)
    var text = [CChar](repeating: 0, count: 18)
    _ = ba2str(&address, &text)
    #expect(String(decoding: text.prefix(17).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "DD:34:02:06:D0:6C")
  }

  @Test func libcurlReportsItsVersionAndTakesOptionsThroughTheShim() throws {
    let info = try #require(curl_version_info(bp_curlversion_now))
    #expect(info.pointee.version_num >= 0x07_40_00)
    let handle = try #require(curl_easy_init())
    defer { curl_easy_cleanup(handle) }
    #expect(bp_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, 1000) == CURLE_OK)
    #expect(bp_curl_setopt_string(handle, CURLOPT_URL, "http://127.0.0.1:9/") == CURLE_OK)
  }

  @Test func libzipOpensAnInMemoryArchive() throws {
    var error = zip_error_t()
    zip_error_init(&error)
    // An empty zip: just the end-of-central-directory record.
    var empty: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)
    let archive = empty.withUnsafeMutableBytes { raw -> OpaquePointer? in
      guard let source = zip_source_buffer_create(raw.baseAddress, zip_uint64_t(raw.count), 0, &error) else {
        return nil
      }
      return zip_open_from_source(source, ZIP_RDONLY, &error)
    }
    let zip = try #require(archive)
    #expect(zip_get_num_entries(zip, 0) == 0)
    zip_discard(zip)
  }

  @Test func libcryptoComputesMD5() throws {
    // RFC 1321 test suite: MD5("abc").
    var digest = [UInt8](repeating: 0, count: 16)
    var size: UInt32 = 0
    let ok = Array("abc".utf8).withUnsafeBytes { EVP_Digest($0.baseAddress, 3, &digest, &size, EVP_md5(), nil) }
    #expect(ok == 1)
    #expect(digest.map { String(format: "%02x", $0) }.joined() == "900150983cd24fb0d6963f7d28e17f72")
  }
}

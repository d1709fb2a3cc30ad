import CCurl

/// Where one attempt puts the body: in memory (`fetch`) or into a file descriptor (`download`), resuming at
/// `resumeFrom` with a Range request when that is above zero.
enum TransferSink: Sendable {
  case memory
  case file(descriptor: Int32, resumeFrom: Int64)
}

/// Why an attempt stopped itself from a callback (libcurl then reports CURLE_WRITE_ERROR or
/// CURLE_ABORTED_BY_CALLBACK, which says nothing about the cause).
enum TransferAbort: Sendable, Hashable {
  case cancelled
  case tooLarge(Int64)
  /// A 206 whose Content-Range does not start where the file ends: the file is truncated and restarted.
  case rangeMismatch
  case fileWrite(errno: Int32)
}

/// What one attempt ended with; read by `CurlHTTPClient` to decide between returning, retrying and throwing.
struct TransferOutcome: Sendable {
  var code: CURLcode
  var curlMessage: String
  var status: Int
  var headers: [HTTPHeader]
  var body: [UInt8]
  var effectiveURL: String
  var redirectURL: String?
  var connected: Bool
  var fileSize: Int64
  var abort: TransferAbort?
  /// The body cap this attempt enforced, in bytes.
  var cap: Int64
}

import Foundation

/// Just enough HTML reading for the report's tests, on the renderer's output and on the DOM Chromium dumps
/// (both quote every attribute value with `"`): the start tags with their attributes, an element's markup by
/// its `id`, and the text inside it.
struct HTMLScan {
  struct Tag: Equatable {
    var name: String
    var attributes: [String: String]
    subscript(_ attribute: String) -> String? { attributes[attribute] }
  }

  let html: String

  init(_ html: String) { self.html = html }

  /// Every start tag, in document order (`<!DOCTYPE>`, comments and end tags left out).
  var tags: [Tag] {
    let tag = /<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'<>\/=]+(?:="[^"]*")?)*)\s*\/?>/
    let attribute = /([^\s"'<>\/=]+)(?:="([^"]*)")?/
    return html.matches(of: tag).map { match in
      var attributes: [String: String] = [:]
      for a in String(match.output.2).matches(of: attribute) {
        attributes[a.output.1.lowercased()] = a.output.2.map { Self.unescape(String($0)) } ?? ""
      }
      return Tag(name: match.output.1.lowercased(), attributes: attributes)
    }
  }

  /// The tags with this name (`rect`) or all, that carry `attribute`.
  func tags(_ name: String? = nil, with attribute: String) -> [Tag] {
    tags.filter { (name == nil || $0.name == name) && $0[attribute] != nil }
  }

  /// The markup from the start tag with this `id` to the first end tag of its name after it (enough for
  /// the elements the tests look into, which do not nest in themselves).
  func element(id: String) -> HTMLScan? {
    guard let open = html.range(of: "id=\"\(id)\"") else { return nil }
    guard let start = html[..<open.lowerBound].range(of: "<", options: .backwards) else { return nil }
    let name = html[html.index(after: start.lowerBound)...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
    guard let end = html[open.upperBound...].range(of: "</\(name)>") else { return nil }
    return HTMLScan(String(html[start.lowerBound..<end.upperBound]))
  }

  /// The element's text: its markup without tags, character references decoded, whitespace trimmed.
  var text: String {
    Self.unescape(html.replacing(/<[^>]*>/, with: "")).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The five references the renderer writes, and the ones Chromium writes when it serialises.
  static func unescape(_ text: String) -> String {
    text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
      .replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
  }

  /// `data-label` → `data-count` of the counted elements inside the element with this id, in order.
  func counts(in id: String) -> [(label: String, count: Int)] {
    (element(id: id)?.tags(with: "data-count") ?? []).map {
      ($0["data-label"] ?? "", Int($0["data-count"] ?? "") ?? -1)
    }
  }
}

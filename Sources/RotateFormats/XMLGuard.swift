/// Readies a document for `XMLParser`, whose Linux implementation (swift-corelibs-foundation)
/// dereferences null pointers that libxml2 hands it for some valid constructs, and so would crash
/// the process: a processing instruction without data (`<?pi?>`), a notation declaration, an
/// attribute declaration with `#IMPLIED` or `#REQUIRED`, an unparsed (`NDATA`) entity, and any of
/// these arriving through an entity's replacement text.
///
/// The document is scanned the way the parser tokenizes markup (comments, CDATA sections,
/// processing instructions, the DOCTYPE and its internal subset; quoted literals honored):
/// - a processing instruction without data gets a space after its target (same meaning: its data
///   is empty either way);
/// - in the internal subset, element declarations, comments, processing instructions and entity
///   declarations are kept, but an entity value may hold plain text only (no `<`, `&` or `%`),
///   and attribute declarations, notations, unparsed entities and parameter-entity references are
///   refused with their line;
/// - UTF-16 is converted to UTF-8 first (the scan reads bytes), and the declaration's encoding
///   set to match; UTF-32 is refused, and so is the character U+0000 (XML allows it nowhere);
/// - a tag (its attributes included), comment, CDATA section, processing instruction or DOCTYPE
///   declaration longer than `maximumMarkupBytes` is refused with the line where it starts: the
///   parser, fed as a stream, holds each of these whole and stops with an internal error (libxml2's
///   "huge input lookup", past 10,000,000 bytes) that names neither the construct nor the limit.
///   Text between tags is handed to the delegate in pieces and needs no limit.
/// Anything the scan cannot follow (an unclosed comment, a malformed declaration) is left to the
/// parser, which reports it.
enum XMLGuard {
    /// The longest tag, comment, CDATA section, processing instruction or DOCTYPE declaration
    /// read, in bytes of UTF-8: 1 MiB, the limit of a CSV record and of a sidecar line (a GPX
    /// point's tag is under 100 bytes).
    static let maximumMarkupBytes = 1_048_576

    static func prepare(_ input: [UInt8]) throws(WalkFileError) -> [UInt8] {
        let bytes = try utf8(input)
        // U+0000 is not an XML character in any encoding. Refused here because the parser sniffs
        // the encoding from the first four bytes: a converted UTF-16 document starting with NULs
        // and `<` (00 00 00 3C) would be taken for UTF-32, and libxml2 crashes on it.
        if let nul = bytes.firstIndex(of: 0) {
            let line = 1 + bytes[..<nul].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            let column = nul - (bytes[..<nul].lastIndex(of: 0x0A) ?? -1)
            throw WalkFileError(line: line, reason: .notWellFormedXML(column: column, "a character XML does not allow (U+0000)"))
        }
        var scanner = Scanner(bytes: bytes)
        try scanner.run()
        guard !scanner.insertions.isEmpty else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + scanner.insertions.count)
        var start = 0
        for position in scanner.insertions {
            output += bytes[start..<position]
            output.append(0x20)
            start = position
        }
        output += bytes[start...]
        return output
    }

    /// The document in UTF-8 (or the ASCII-compatible encoding it declares): UTF-16 with a byte
    /// order mark, or recognizable by `<` as its first unit, is converted.
    static func utf8(_ bytes: [UInt8]) throws(WalkFileError) -> [UInt8] {
        let head = Array(bytes.prefix(4)) + [UInt8](repeating: 0xAA, count: max(0, 4 - bytes.count))
        if head == [0x00, 0x00, 0xFE, 0xFF] || head == [0xFF, 0xFE, 0x00, 0x00] || head == [0x00, 0x00, 0x00, 0x3C]
            || head == [0x3C, 0x00, 0x00, 0x00]
        {
            throw WalkFileError(line: 1, reason: .unsupportedXML("UTF-32 (convert the file to UTF-8)"))
        }
        let bigEndian: Bool
        var start = 0
        switch (head[0], head[1], head[2], head[3]) {
        case (0xFE, 0xFF, _, _): (bigEndian, start) = (true, 2)
        case (0xFF, 0xFE, _, _): (bigEndian, start) = (false, 2)
        case (0x00, 0x3C, 0x00, _): bigEndian = true
        case (0x3C, 0x00, _, 0x00): bigEndian = false
        default: return bytes
        }
        var units: [UInt16] = []
        units.reserveCapacity((bytes.count - start) / 2)
        var i = start
        while i + 1 < bytes.count {
            units.append(bigEndian ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i]))
            i += 2
        }
        var output: [UInt8] = []
        output.reserveCapacity(units.count)
        var line = 1
        let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) { unit in
            output.append(unit)
            if unit == 0x0A { line += 1 }
        }
        // An unpaired surrogate, or an odd byte at the end.
        if failed || (bytes.count - start) % 2 != 0 {
            throw WalkFileError(line: line, reason: .notWellFormedXML(column: 1, "a character or encoding that XML does not allow"))
        }
        return declaringUTF8(output)
    }

    /// `output` with the encoding its XML declaration names (if any) replaced by UTF-8.
    static func declaringUTF8(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.starts(with: Array("<?xml".utf8)), let end = firstIndex(of: Array("?>".utf8), in: bytes, from: 5),
            let name = firstIndex(of: Array("encoding".utf8), in: Array(bytes[0..<end]), from: 5)
        else { return bytes }
        var i = name + 8
        while i < end, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x3D { i += 1 }
        guard i < end, bytes[i] == 0x22 || bytes[i] == 0x27, let close = bytes[(i + 1)..<end].firstIndex(of: bytes[i]) else { return bytes }
        return Array(bytes[0...i]) + Array("UTF-8".utf8) + Array(bytes[close...])
    }

    static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start <= bytes.count - pattern.count else { return nil }
        var i = start
        while i <= bytes.count - pattern.count {
            if bytes[i] == pattern[0] && bytes[i..<(i + pattern.count)].elementsEqual(pattern) { return i }
            i += 1
        }
        return nil
    }

    /// The markup scan: where spaces go, or the first construct refused.
    struct Scanner {
        let bytes: [UInt8]
        var i = 0
        var line = 1
        var insertions: [Int] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        func at(_ text: String) -> Bool {
            let pattern = Array(text.utf8)
            return i + pattern.count <= bytes.count && bytes[i..<(i + pattern.count)].elementsEqual(pattern)
        }

        static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

        /// Moves `i` past the next `pattern`; false (at the end) when there is none.
        mutating func skip(past pattern: String) -> Bool {
            let pattern = Array(pattern.utf8)
            while i < bytes.count {
                if bytes[i] == pattern[0] && i + pattern.count <= bytes.count && bytes[i..<(i + pattern.count)].elementsEqual(pattern) {
                    i += pattern.count
                    return true
                }
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            }
            return false
        }

        mutating func skipSpaces() {
            while i < bytes.count, Self.isSpace(bytes[i]) {
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            }
        }

        /// Past a quoted literal starting at `i`; its content's range, or nil at the end.
        mutating func literal() -> Range<Int>? {
            let quote = bytes[i]
            let start = i + 1
            i += 1
            while i < bytes.count, bytes[i] != quote {
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            }
            guard i < bytes.count else { return nil }
            i += 1
            return start..<(i - 1)
        }

        /// Past the `>` ending a declaration, honoring quoted literals; the declaration's words
        /// outside literals. False at the end.
        mutating func declarationEnd(words: inout [UInt8]) -> Bool {
            while i < bytes.count {
                switch bytes[i] {
                case 0x22, 0x27: guard literal() != nil else { return false }
                case 0x3E:
                    i += 1
                    return true
                default:
                    if bytes[i] == 0x0A { line += 1 }
                    words.append(bytes[i])
                    i += 1
                }
            }
            return false
        }

        mutating func run() throws(WalkFileError) {
            while i < bytes.count {
                if bytes[i] == 0x0A {
                    line += 1
                    i += 1
                    continue
                }
                guard bytes[i] == 0x3C, i + 1 < bytes.count else {
                    i += 1
                    continue
                }
                let start = i, startLine = line
                let what: String
                let closed: Bool
                if bytes[i + 1] != 0x21 && bytes[i + 1] != 0x3F {
                    (what, closed) = ("a tag (its attributes included)", tag())
                } else if at("<!--") {
                    i += 4
                    (what, closed) = ("a comment", skip(past: "-->"))
                } else if at("<![CDATA[") {
                    i += 9
                    (what, closed) = ("a CDATA section", skip(past: "]]>"))
                } else if at("<?") {
                    (what, closed) = ("a processing instruction", processingInstruction())
                } else if at("<!DOCTYPE") {
                    i += 9
                    (what, closed) = ("the DOCTYPE declaration", try doctype())
                } else {
                    i += 1
                    continue
                }
                // Measured also when the file ends inside it: the parser would hold that much too.
                if i - start > XMLGuard.maximumMarkupBytes {
                    throw WalkFileError(
                        line: startLine,
                        reason: .unsupportedXML("\(what) is \(i - start) bytes long; at most \(XMLGuard.maximumMarkupBytes)"))
                }
                guard closed else { return }
            }
        }

        /// Past a start or end tag at `i` (its `<`) through its `>`, honoring quoted attribute
        /// values (a quote after `=`, spaces allowed between); false at the end.
        mutating func tag() -> Bool {
            i += 1
            var afterEquals = false
            while i < bytes.count {
                let b = bytes[i]
                if b == 0x3E {
                    i += 1
                    return true
                }
                if (b == 0x22 || b == 0x27) && afterEquals {
                    guard literal() != nil else { return false }
                    afterEquals = false
                    continue
                }
                if b == 0x3D {
                    afterEquals = true
                } else if b == 0x0A {
                    line += 1
                } else if !Self.isSpace(b) {
                    afterEquals = false
                }
                i += 1
            }
            return false
        }

        /// Past a processing instruction at `i`, noting a space after a target with no data.
        mutating func processingInstruction() -> Bool {
            i += 2
            while i < bytes.count, !Self.isSpace(bytes[i]), bytes[i] != 0x3F { i += 1 }
            if at("?>") { insertions.append(i) }
            return skip(past: "?>")
        }

        /// Past a DOCTYPE (after its keyword), checking the internal subset.
        mutating func doctype() throws(WalkFileError) -> Bool {
            while i < bytes.count {
                switch bytes[i] {
                case 0x22, 0x27: guard literal() != nil else { return false }
                case 0x5B:
                    i += 1
                    guard try internalSubset() else { return false }
                case 0x3E:
                    i += 1
                    return true
                default:
                    if bytes[i] == 0x0A { line += 1 }
                    i += 1
                }
            }
            return false
        }

        /// Past the internal subset (after its `[`, through its `]`).
        mutating func internalSubset() throws(WalkFileError) -> Bool {
            while true {
                skipSpaces()
                guard i < bytes.count else { return false }
                let declarationLine = line
                func refuse(_ what: String) -> WalkFileError {
                    WalkFileError(line: declarationLine, reason: .unsupportedXML(what))
                }
                if bytes[i] == 0x5D {
                    i += 1
                    return true
                } else if at("<!--") {
                    i += 4
                    guard skip(past: "-->") else { return false }
                } else if at("<?") {
                    guard processingInstruction() else { return false }
                } else if at("<!ENTITY") {
                    i += 8
                    var words: [UInt8] = []
                    while i < bytes.count, bytes[i] != 0x22, bytes[i] != 0x27, bytes[i] != 0x3E {
                        if bytes[i] == 0x0A { line += 1 }
                        words.append(bytes[i])
                        i += 1
                    }
                    guard i < bytes.count else { return false }
                    if bytes[i] != 0x3E, !String(decoding: words, as: UTF8.self).contains("SYSTEM"),
                        !String(decoding: words, as: UTF8.self).contains("PUBLIC")
                    {
                        guard let value = literal() else { return false }
                        if bytes[value].contains(where: { $0 == 0x3C || $0 == 0x26 || $0 == 0x25 }) {
                            throw refuse(
                                "an entity whose value holds markup or references ('<', '&' or '%'); only plain text values are read")
                        }
                    }
                    guard declarationEnd(words: &words) else { return false }
                    if String(decoding: words, as: UTF8.self).contains("NDATA") { throw refuse("an unparsed (NDATA) entity") }
                } else if at("<!ELEMENT") {
                    var words: [UInt8] = []
                    guard declarationEnd(words: &words) else { return false }
                } else if at("<!ATTLIST") {
                    throw refuse("attribute declarations (<!ATTLIST>) in the DTD")
                } else if at("<!NOTATION") {
                    throw refuse("notation declarations (<!NOTATION>) in the DTD")
                } else if bytes[i] == 0x25 {
                    throw refuse("parameter-entity references (%name;) in the DTD")
                } else {
                    return false  // not a declaration: the parser reports it
                }
            }
        }
    }
}

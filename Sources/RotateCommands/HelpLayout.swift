/// How help text is laid out: wrapped at `width` columns, options and commands in two aligned
/// columns, as swift-argument-parser lays out its help.
enum HelpLayout {
    /// The widest a help line may be, in characters.
    static let width = 100
    /// Labels longer than this stand on a line of their own, their text below.
    static let widestLabelInColumn = 26

    /// `text` broken at spaces into lines of at most `width` characters. A word longer than
    /// `width` is cut, so that no line is longer.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count <= width {
                line += " " + word
                continue
            }
            if !line.isEmpty { lines.append(line) }
            var rest = word
            while rest.count > width {
                lines.append(String(rest.prefix(width)))
                rest = rest.dropFirst(width)
            }
            line = String(rest)
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// The column where the texts of rows with these labels start: two spaces past the longest
    /// label of at most `widestLabelInColumn` characters, itself indented by two.
    static func column(for labels: [String]) -> Int {
        2 + (labels.map(\.count).filter { $0 <= widestLabelInColumn }.max() ?? widestLabelInColumn) + 2
    }

    /// Two columns: each label indented by two spaces and its text from `column` on, wrapped at
    /// `width`. A label too long for the column stands on its own line, its text below.
    static func rows(_ rows: [(label: String, text: String)], column: Int? = nil, width: Int = width) -> [String] {
        let column = column ?? self.column(for: rows.map(\.label))
        let indent = String(repeating: " ", count: column)
        var lines: [String] = []
        for row in rows {
            var text = wrap(row.text, width: width - column)
            let label = "  " + row.label
            if label.count + 2 <= column {
                let first = text.isEmpty ? "" : text.removeFirst()
                lines.append(label + String(repeating: " ", count: column - label.count) + first)
            } else {
                lines.append(label)
            }
            lines += text.map { indent + $0 }
        }
        return lines
    }

    /// `text` with each paragraph of prose (lines that start with a letter or sign, up to a blank
    /// or an indented line) joined and wrapped at `width`. Indented lines (examples) keep their
    /// indentation; one too long is wrapped with its continuation indented two more.
    static func reflow(_ text: String, width: Int = width) -> [String] {
        var lines: [String] = []
        var paragraph: [Substring] = []
        func endParagraph() {
            if !paragraph.isEmpty { lines += wrap(paragraph.joined(separator: " "), width: width) }
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indentation = line.prefix { $0 == " " }.count
            if line.allSatisfy({ $0 == " " }) {
                endParagraph()
                lines.append("")
            } else if indentation == 0 {
                paragraph.append(line)
            } else {
                endParagraph()
                let wrapped = wrap(String(line.dropFirst(indentation)), width: width - indentation - 2)
                let first = String(repeating: " ", count: indentation), rest = first + "  "
                lines += wrapped.enumerated().map { ($0.offset == 0 ? first : rest) + $0.element }
            }
        }
        endParagraph()
        return lines
    }
}

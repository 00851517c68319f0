/// Counts the records of CSV text without reading their fields: the reference that the places
/// and walk readers' row counts are checked against.
///
/// The rules are RFC 4180's, with the choices the readers document (`CSVScanner`):
/// - a UTF-8 byte order mark (EF BB BF) at the very start is not content;
/// - a record ends at LF, at CR, or at CR LF (one break), outside a quoted field;
/// - a field is quoted only when its first byte is `"`; inside it `""` is a quote, and a `"` not
///   followed by another closes it; a quote anywhere else (inside an unquoted field, after a
///   closing quote) makes the record a rejected one but ends nothing: for counting it is an
///   ordinary byte;
/// - a line with no byte at all is blank and is no record (a line of spaces is one);
/// - the last record counts without a line end, and a quoted field left open runs to the end of
///   the input as one record.
///
/// Standard library only: Tests/Fuzz/run.sh compiles this file into the fuzz targets as it is.
public enum CSVRecordCount {
    /// Records in `bytes`, the header row included.
    public static func records(in bytes: [UInt8]) -> Int {
        let quote: UInt8 = 0x22, comma: UInt8 = 0x2C, cr: UInt8 = 0x0D, lf: UInt8 = 0x0A
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var records = 0
        var lineIsBlank = true
        var atFieldStart = true
        var inQuotes = false
        while i < bytes.count {
            let byte = bytes[i]
            i += 1
            if inQuotes {
                if byte == quote {
                    if i < bytes.count && bytes[i] == quote { i += 1 } else { inQuotes = false }
                }
                continue
            }
            switch byte {
            case cr, lf:
                if byte == cr && i < bytes.count && bytes[i] == lf { i += 1 }
                if !lineIsBlank { records += 1 }
                lineIsBlank = true
                atFieldStart = true
            case comma:
                lineIsBlank = false
                atFieldStart = true
            default:
                if byte == quote && atFieldStart { inQuotes = true }
                lineIsBlank = false
                atFieldStart = false
            }
        }
        if !lineIsBlank { records += 1 }
        return records
    }

    /// Data rows in `bytes`: the records after the first, which is the header.
    public static func dataRows(in bytes: [UInt8]) -> Int { max(0, records(in: bytes) - 1) }
}

/// Checked arithmetic for segment times and numbers: an MPD's hostile numbers (a `@t` near
/// Int64's end, a huge `@r`) are refused with their line, never a trap.
extension SegmentAddressing {
    static func sum(_ a: Int64, _ b: Int64, line: Int?, _ what: @autoclosure () -> String) throws(MPDError) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw overflowError(line: line, what()) }
        return result
    }

    static func difference(_ a: Int64, _ b: Int64, line: Int?, _ what: @autoclosure () -> String) throws(MPDError) -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        guard !overflow else { throw overflowError(line: line, what()) }
        return result
    }

    static func product(_ a: Int64, _ b: Int64, line: Int?, _ what: @autoclosure () -> String) throws(MPDError) -> Int64 {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow else { throw overflowError(line: line, what()) }
        return result
    }

    static func overflowError(line: Int?, _ what: String) -> MPDError {
        MPDError(line: line, "\(what) is past the numbers Carryon computes with (Int64)")
    }
}

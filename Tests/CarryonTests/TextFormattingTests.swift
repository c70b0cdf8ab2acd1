@testable import Carryon
import Foundation
import Testing

/// The figures tables print, written without format strings (a table of 10,000 assets formats
/// 20,000 of them), as `String(format:)` wrote them.
@Suite("Formatting figures")
struct TextFormattingTests {
    @Test("formatNumber writes what %.Nf wrote, trailing zeros cut, for ties, negatives, zero and -0, huge and tiny values")
    func numbersAsPrintf() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1.005, 9.995, 99.95, 999.5, -0.0004, -2.5, 1e14, 123_456.789, 0.0005, 0.0015]
        for _ in 0..<5_000 { values.append(Double.random(in: -1e6...1e6, using: &generator) / Double([1, 10, 1000, 1e6].randomElement(using: &generator)!)) }
        for value in values {
            for decimals in 0...4 {
                var expected = String(format: "%.\(decimals)f", value)
                if expected.contains(".") {
                    while expected.hasSuffix("0") { expected.removeLast() }
                    if expected.hasSuffix(".") { expected.removeLast() }
                }
                #expect(formatNumber(value, decimals: decimals) == expected, "\(value) with \(decimals) decimals")
            }
        }
    }

    @Test("formatDuration and formatBytes: minutes, hours, tenths, units")
    func durationsAndBytes() {
        #expect(formatDuration(0) == "0:00.0")
        #expect(formatDuration(5.34) == "0:05.3")
        #expect(formatDuration(59.96) == "1:00.0")
        #expect(formatDuration(3_725.25) == "1:02:05.3" || formatDuration(3_725.25) == "1:02:05.2")
        #expect(formatDuration(36_000) == "10:00:00.0")
        #expect(formatBytes(999) == "999 B")
        #expect(formatBytes(56_100_000) == "56.1 MB")
        #expect(formatBytes(1_000) == "1 KB")
        #expect(formatBytes(9_999_999) == "10 MB")
    }
}

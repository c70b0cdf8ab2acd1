import Foundation

/// A URI shown relative to the playlist's folder when it lies below it, else in full.
package func relative(_ uri: String, to base: String) -> String {
    guard let slash = base.lastIndex(of: "/") else { return uri }
    let folder = base[...slash]
    return uri.hasPrefix(folder) ? String(uri.dropFirst(folder.count)) : uri
}

/// A bitrate that a playlist read leniently may leave out: "unknown bitrate" when it does.
package func formatBitrate(_ bitsPerSecond: Int?) -> String {
    bitsPerSecond.map { formatBitrate($0) } ?? "unknown bitrate"
}

package func formatBitrate(_ bitsPerSecond: Int) -> String {
    switch bitsPerSecond {
    case 1_000_000...: formatNumber(Double(bitsPerSecond) / 1_000_000, decimals: 2) + " Mb/s"
    case 1_000...: formatNumber(Double(bitsPerSecond) / 1_000, decimals: 0) + " kb/s"
    default: "\(bitsPerSecond) b/s"
    }
}

/// A number with at most `decimals` decimals and no trailing zeros.
package func formatNumber(_ value: Double, decimals: Int = 3) -> String {
    var text = fixedPoint(value, decimals: decimals)
    // A byte, not a substring: Foundation's `contains(_: StringProtocol)` goes through NSString
    // (7 % of `list`'s time at 10,000 assets).
    if text.utf8.contains(UInt8(ascii: ".")) {
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
    }
    return text
}

/// `h:mm:ss.s` or `m:ss.s`.
package func formatDuration(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    let hours = tenths / 36000
    let minutes = (tenths / 600) % 60
    let secs = tenths % 600
    let secondsText = (secs < 100 ? "0" : "") + "\(secs / 10).\(secs % 10)"
    return hours > 0 ? "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes):" + secondsText : "\(minutes):" + secondsText
}

/// `value` with `decimals` digits after the point, as `%.Nf` writes it (ties to even), without
/// a format string's cost: a table of 10,000 assets formats 20,000 numbers.
private func fixedPoint(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<min(max(decimals, 0), 6) { scale *= 10 }
    let product = abs(value) * scale
    // The product is within an ulp of the exact one (under 1e-7 below 1e9): far from a tie,
    // it rounds as printf does; near one, printf decides from the exact binary value.
    guard value.isFinite, (0...6).contains(decimals), product < 1e9, abs(product - product.rounded(.down) - 0.5) > 1e-6 else {
        return String(format: "%.\(decimals)f", value)
    }
    let scaled = Int64(product.rounded())
    let unit = Int64(scale)
    let whole = scaled / unit
    var text = (value.sign == .minus ? "-" : "") + String(whole)
    if decimals > 0 {
        let fraction = String(scaled % unit)
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return text
}

/// Bytes in decimal units (`56.1 MB`).
package func formatBytes(_ bytes: Int) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1000, unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : formatNumber(value, decimals: value < 10 ? 2 : 1) + " " + units[unit]
}

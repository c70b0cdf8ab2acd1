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
    var text = String(format: "%.\(decimals)f", value)
    if text.contains(".") {
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
    let secs = Double(tenths % 600) / 10
    let secondsText = String(format: "%04.1f", secs)
    return hours > 0 ? String(format: "%d:%02d:", hours, minutes) + secondsText : "\(minutes):" + secondsText
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

import Crypto
import _CryptoExtras
import Foundation

/// Decrypts a common-encryption sample (ISO/IEC 23001-7 9, 10): `cenc` and `cens` with AES-CTR,
/// `cbc1` and `cbcs` with AES-CBC; `cens` and `cbcs` by their pattern of encrypted and skipped
/// 16-byte blocks; `cbcs` starting each subsample again from the IV.
enum SampleDecryption {
    /// The sample in clear, and the ranges of its bytes that were encrypted.
    static func decrypt(_ sample: ProtectedSample, key: [UInt8]) throws(MP4Structure) -> (clear: [UInt8], encrypted: [Range<Int>]) {
        let scheme = sample.entry.scheme ?? "cenc"
        let subsamples = sample.subsamples.isEmpty ? [(clear: 0, protected: sample.bytes.count)] : sample.subsamples
        // The encrypted 16-byte blocks (or, for CTR without a pattern, whole protected ranges).
        var ranges: [[Range<Int>]] = []
        var position = 0
        let patterned = scheme == "cbcs" || scheme == "cens"
        let crypt = sample.entry.cryptBlocks, skip = sample.entry.skipBlocks
        for subsample in subsamples {
            position += subsample.clear
            var blocks: [Range<Int>] = []
            let end = position + subsample.protected
            if patterned && crypt > 0 {
                var block = position
                while block + 16 <= end {
                    for _ in 0..<crypt where block + 16 <= end {
                        blocks.append(block..<(block + 16))
                        block += 16
                    }
                    block += 16 * skip
                }
            } else if scheme == "cenc" || scheme == "cens" {
                if subsample.protected > 0 { blocks.append(position..<end) }
            } else {
                // CBC: whole blocks only; a partial block at the end stays clear.
                let whole = subsample.protected / 16 * 16
                if whole > 0 { blocks.append(position..<(position + whole)) }
            }
            ranges.append(blocks)
            position = end
        }
        guard ["cenc", "cens", "cbcs", "cbc1"].contains(scheme) else { throw MP4Structure("the scheme \(scheme) is not common encryption") }
        var clear = sample.bytes
        let symmetric = SymmetricKey(data: key)
        let iv = sample.iv.count == 8 ? sample.iv + [UInt8](repeating: 0, count: 8) : sample.iv
        guard iv.count == 16 else { throw MP4Structure("an IV of \(sample.iv.count) bytes") }
        do {
            if scheme == "cenc" || scheme == "cens" {
                // One counter over every encrypted byte of the sample.
                let all = ranges.flatMap { $0 }
                let text = all.flatMap { clear[$0] }
                let out = [UInt8](try AES._CTR.decrypt(text, using: symmetric, nonce: AES._CTR.Nonce(nonceBytes: iv)))
                put(out, into: &clear, at: all)
            } else if scheme == "cbcs" {
                for blocks in ranges where !blocks.isEmpty {
                    let text = blocks.flatMap { clear[$0] }
                    let out = [UInt8](try AES._CBC.decrypt(text, using: symmetric, iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
                    put(out, into: &clear, at: blocks)
                }
            } else {
                let all = ranges.flatMap { $0 }
                let text = all.flatMap { clear[$0] }
                if !text.isEmpty {
                    let out = [UInt8](try AES._CBC.decrypt(text, using: symmetric, iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
                    put(out, into: &clear, at: all)
                }
            }
        } catch let error as MP4Structure {
            throw error
        } catch {
            throw MP4Structure("AES failed: \(error)")
        }
        return (clear, ranges.flatMap { $0 })
    }

    private static func put(_ bytes: [UInt8], into sample: inout [UInt8], at ranges: [Range<Int>]) {
        var offset = 0
        for range in ranges {
            sample.replaceSubrange(range, with: bytes[offset..<(offset + range.count)])
            offset += range.count
        }
    }
}

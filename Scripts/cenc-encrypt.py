#!/usr/bin/env python3
"""Encrypts fragmented H.264 MP4 (an init section and its media segments) with Common Encryption,
the 'cenc' scheme (AES-128 CTR, ISO/IEC 23001-7), in place.

ffmpeg 5.1 encrypts only unfragmented MP4 correctly: for fragmented output it writes the sample
encryption boxes into the init section's sample table instead of each fragment, so no decryptor
can read its fragments. This script does what a packager (Shaka Packager, Bento4's mp4encrypt)
does, for the test samples only:

- the init section: the `avc1` sample entry becomes `encv` with a `sinf` (`frma` avc1, `schm`
  cenc, `tenc` with the KID and 8-byte IVs), and the movie gets a Clear Key `pssh` (version 1,
  naming the KID), so a player may start from either the MPD or the init section;
- each segment: every VCL NAL unit is encrypted past its length, its header and the first 32
  bytes of its slice, in whole 16-byte blocks (subsample encryption, as CENC asks for AVC); the
  other NAL units stay clear. Each `traf` gains `saiz`, `saio` and `senc` (IVs and subsamples),
  and the `trun` data offset and the `sidx` referenced size grow by what was added.

IVs are deterministic (the sample's number across the files), so the output is reproducible.

Usage: cenc-encrypt.py KEY_HEX KID_HEX INIT SEGMENT...
Needs the `cryptography` package (pip install cryptography).
"""
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

CLEAR_KEY_SYSTEM = bytes.fromhex("1077efecc0b24d02ace33c1e52e2fb4b")
CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"moof", b"traf"}


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def children(data):
    """(kind, payload) of each box in `data`."""
    position, found = 0, []
    while position < len(data):
        size, kind = struct.unpack(">I4s", data[position:position + 8])
        if size < 8 or position + size > len(data):
            raise SystemExit(f"cenc-encrypt: a {kind!r} box of {size} bytes at {position} does not fit")
        found.append((kind, data[position + 8:position + size]))
        position += size
    return found


def protect_init(data, kid):
    def rewrite(kind, payload):
        if kind == b"stsd":
            head, entries = payload[:8], children(payload[8:])
            out = b""
            for entry, body in entries:
                if entry != b"avc1":
                    raise SystemExit(f"cenc-encrypt: a {entry!r} sample entry; only avc1 is encrypted")
                # VisualSampleEntry: 78 bytes of fields, then its boxes; sinf goes last.
                tenc = full_box(b"tenc", 0, 0, bytes([0, 0, 1, 8]) + kid)
                sinf = box(b"sinf", box(b"frma", b"avc1")
                           + full_box(b"schm", 0, 0, b"cenc" + struct.pack(">I", 0x10000))
                           + box(b"schi", tenc))
                out += box(b"encv", body + sinf)
            return box(kind, head + out)
        if kind in CONTAINERS:
            inner = b"".join(rewrite(k, p) for k, p in children(payload))
            if kind == b"moov":
                inner += full_box(b"pssh", 1, 0, CLEAR_KEY_SYSTEM + struct.pack(">I", 1) + kid + struct.pack(">I", 0))
            return box(kind, inner)
        return box(kind, payload)

    return b"".join(rewrite(k, p) for k, p in children(data))


def subsamples(sample):
    """[(clear, protected)] for one AVC sample of 4-byte-length NAL units."""
    entries, position, clear = [], 0, 0
    while position < len(sample):
        (length,) = struct.unpack(">I", sample[position:position + 4])
        nal_type = sample[position + 4] & 0x1F
        protected = (length - 33) // 16 * 16 if nal_type in (1, 5) and length > 33 + 16 else 0
        clear += 4 + length - protected
        if protected:
            while clear > 0xFFFF:
                entries.append((0xFFFF, 0))
                clear -= 0xFFFF
            entries.append((clear, protected))
            clear = 0
        position += 4 + length
    if position != len(sample):
        raise SystemExit("cenc-encrypt: a sample's NAL unit lengths do not add up to its size")
    if clear:
        while clear > 0xFFFF:
            entries.append((0xFFFF, 0))
            clear -= 0xFFFF
        entries.append((clear, 0))
    return entries


def encrypt_sample(sample, key, iv, entries):
    cipher = Cipher(algorithms.AES(key), modes.CTR(iv + bytes(8))).encryptor()
    out, position = bytearray(), 0
    ranges = []
    for clear, protected in entries:
        out += sample[position:position + clear]
        position += clear
        ranges.append((len(out), protected))
        out += sample[position:position + protected]
        position += protected
    stream = cipher.update(b"".join(bytes(out[start:start + size]) for start, size in ranges)) + cipher.finalize()
    offset = 0
    for start, size in ranges:
        out[start:start + size] = stream[offset:offset + size]
        offset += size
    return bytes(out)


def protect_segment(data, key, next_iv):
    parts = children(data)
    kinds = [kind for kind, _ in parts]
    if kinds.count(b"moof") != 1 or kinds.index(b"mdat") != kinds.index(b"moof") + 1:
        raise SystemExit(f"cenc-encrypt: expected one moof followed by its mdat, found {kinds}")
    moof_start = sum(8 + len(p) for _, p in parts[:kinds.index(b"moof")])
    moof_size = 8 + len(parts[kinds.index(b"moof")][1])
    mdat = bytearray(parts[kinds.index(b"mdat")][1])
    traf_boxes = [(k, p) for k, p in children(parts[kinds.index(b"moof")][1])]
    if [k for k, _ in traf_boxes] != [b"mfhd", b"traf"]:
        raise SystemExit("cenc-encrypt: expected a moof of one mfhd and one traf")
    traf = children(traf_boxes[1][1])
    tfhd = next(p for k, p in traf if k == b"tfhd")
    (tfhd_flags,) = struct.unpack(">I", tfhd[:4])
    default_size = None
    if tfhd_flags & 0x01:
        raise SystemExit("cenc-encrypt: a tfhd with a base data offset")
    field = 8 + (4 if tfhd_flags & 0x02 else 0) + (4 if tfhd_flags & 0x08 else 0)
    if tfhd_flags & 0x10:
        (default_size,) = struct.unpack(">I", tfhd[field:field + 4])
    trun = bytearray(next(p for k, p in traf if k == b"trun"))
    (trun_flags, count) = struct.unpack(">II", trun[:8])
    trun_flags &= 0xFFFFFF
    if not trun_flags & 0x01:
        raise SystemExit("cenc-encrypt: a trun without a data offset")
    (data_offset,) = struct.unpack(">i", trun[8:12])
    position = 12 + (4 if trun_flags & 0x04 else 0)
    sizes = []
    for _ in range(count):
        if trun_flags & 0x100: position += 4
        if trun_flags & 0x200:
            sizes.append(struct.unpack(">I", trun[position:position + 4])[0])
            position += 4
        else:
            sizes.append(default_size)
        if trun_flags & 0x400: position += 4
        if trun_flags & 0x800: position += 4

    # Samples start at moof + data offset, i.e. this far into the mdat's payload.
    offset = data_offset - moof_size - 8
    infos = []
    for size in sizes:
        sample = bytes(mdat[offset:offset + size])
        iv = struct.pack(">Q", next_iv)
        next_iv += 1
        entries = subsamples(sample)
        mdat[offset:offset + size] = encrypt_sample(sample, key, iv, entries)
        infos.append(iv + struct.pack(">H", len(entries)) + b"".join(struct.pack(">HI", c, p) for c, p in entries))
        offset += size

    senc = full_box(b"senc", 0, 0x2, struct.pack(">I", count) + b"".join(infos))
    saiz = full_box(b"saiz", 0, 0, bytes([0]) + struct.pack(">I", count) + bytes(len(info) for info in infos))
    saio_size = 8 + 4 + 4 + 4
    added = len(saiz) + saio_size + len(senc)
    struct.pack_into(">i", trun, 8, data_offset + added)
    before_senc = b"".join(box(k, bytes(trun) if k == b"trun" else p) for k, p in traf) + saiz
    # saio: where the first sample's IV is, from the moof's start.
    senc_data = 8 + len(traf_boxes[0][1]) + 8 + 8 + len(before_senc) + saio_size + 16
    saio = full_box(b"saio", 0, 0, struct.pack(">II", 1, senc_data))
    moof = box(b"moof", box(b"mfhd", traf_boxes[0][1]) + box(b"traf", before_senc + saio + senc))
    assert len(moof) == moof_size + added

    out = b""
    for kind, payload in parts:
        if kind == b"sidx":
            payload = bytearray(payload)
            version = payload[0]
            references_at = 4 + 4 + 4 + (8 if version == 0 else 16) + 2
            (reference_count,) = struct.unpack(">H", payload[references_at:references_at + 2])
            if reference_count != 1:
                raise SystemExit("cenc-encrypt: a sidx of more than one reference")
            (word,) = struct.unpack(">I", payload[references_at + 2:references_at + 6])
            struct.pack_into(">I", payload, references_at + 2, (word & 0x80000000) | ((word & 0x7FFFFFFF) + added))
            out += box(kind, bytes(payload))
        elif kind == b"moof":
            out += moof
        elif kind == b"mdat":
            out += box(kind, bytes(mdat))
        else:
            out += box(kind, payload)
    return out, next_iv


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    key, kid = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2].replace("-", ""))
    init, segments = sys.argv[3], sys.argv[4:]
    with open(init, "rb") as file:
        protected = protect_init(file.read(), kid)
    with open(init, "wb") as file:
        file.write(protected)
    next_iv = 1
    for segment in segments:
        with open(segment, "rb") as file:
            protected, next_iv = protect_segment(file.read(), key, next_iv)
        with open(segment, "wb") as file:
            file.write(protected)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes a small Perfetto .pftrace by hand (raw protobuf, no libraries), to test perfetto_check.mjs.

    make_test_trace.py OUT.pftrace [--unterminated]

The trace holds: a process track (pid 1234 "test_proc"), a thread track (tid 1235 "main"),
two nested slices "outer" [1000, 1500] and "inner" [1100, 1200] joined by one flow (flow id 42),
and a counter track "gpu_power" with 3 values (two int64, one double).
With --unterminated the END of "outer" is left out, so trace processor reports dur = -1 for it.
Expected counts (perfetto_check.mjs): slices 2, unterminated 0 (1 with --unterminated),
flows 1, counters 3, max_depth 1, errors [].
"""

import struct
import sys


def varint(n):
    n &= (1 << 64) - 1  # negative int64 -> 10-byte two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint((field << 3) | wire)


def f_varint(field, n):
    return key(field, 0) + varint(n)


def f_bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return key(field, 2) + varint(len(data)) + data


def f_fixed64(field, n):
    return key(field, 1) + struct.pack("<Q", n)


def f_double(field, x):
    return key(field, 1) + struct.pack("<d", x)


SEQ = 1
SLICE_BEGIN, SLICE_END, COUNTER = 1, 2, 4
SEQ_INCREMENTAL_STATE_CLEARED = 1


def packet(body, ts=None, first=False):
    p = b""
    if ts is not None:
        p += f_varint(8, ts)  # TracePacket.timestamp
    p += f_varint(10, SEQ)  # trusted_packet_sequence_id
    if first:
        p += f_varint(13, SEQ_INCREMENTAL_STATE_CLEARED)  # sequence_flags
    return f_bytes(1, p + body)  # Trace.packet


def track_descriptor(uuid, name=None, process=None, thread=None, parent=None, counter=False):
    d = f_varint(1, uuid)
    if name is not None:
        d += f_bytes(2, name)
    if process is not None:
        pid, pname = process
        d += f_bytes(3, f_varint(1, pid) + f_bytes(6, pname))  # ProcessDescriptor
    if thread is not None:
        pid, tid, tname = thread
        d += f_bytes(4, f_varint(1, pid) + f_varint(2, tid) + f_bytes(5, tname))  # ThreadDescriptor
    if parent is not None:
        d += f_varint(5, parent)
    if counter:
        d += f_bytes(8, b"")  # empty CounterDescriptor
    return f_bytes(60, d)  # TracePacket.track_descriptor


def track_event(etype, track, name=None, flows=(), value=None, dvalue=None):
    e = f_varint(9, etype) + f_varint(11, track)
    if name is not None:
        e += f_bytes(23, name)
    for fid in flows:
        e += f_fixed64(47, fid)
    if value is not None:
        e += f_varint(30, value)
    if dvalue is not None:
        e += f_double(44, dvalue)
    return f_bytes(11, e)  # TracePacket.track_event


def build(unterminated=False):
    PROC, THREAD, CTR = 1, 2, 3
    out = [
        packet(track_descriptor(PROC, process=(1234, "test_proc")), ts=900, first=True),
        packet(track_descriptor(THREAD, thread=(1234, 1235, "main"), parent=PROC), ts=900),
        packet(track_descriptor(CTR, name="gpu_power", parent=PROC, counter=True), ts=900),
        packet(track_event(SLICE_BEGIN, THREAD, "outer", flows=[42]), ts=1000),
        packet(track_event(COUNTER, CTR, value=10), ts=1000),
        packet(track_event(SLICE_BEGIN, THREAD, "inner", flows=[42]), ts=1100),
        packet(track_event(SLICE_END, THREAD), ts=1200),
        packet(track_event(COUNTER, CTR, value=20), ts=1300),
        packet(track_event(COUNTER, CTR, dvalue=15.5), ts=1600),
    ]
    if not unterminated:
        out.insert(-1, packet(track_event(SLICE_END, THREAD), ts=1500))
    return b"".join(out)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    with open(args[0], "wb") as f:
        f.write(build(unterminated="--unterminated" in args[1:]))


if __name__ == "__main__":
    main()

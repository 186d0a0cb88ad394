//! Parquet's value encodings, written straight from column buffers: the RLE/bit-packing hybrid
//! (dictionary keys and definition levels) and DELTA_BINARY_PACKED (timestamps, ids, and
//! pages of one repeated number).
//!
//! parquet-rs's generic column writers re-hash every string of a dictionary column and copy
//! every value through per-value encoder calls; on the hot table that was most of the writer's
//! time. These functions encode a whole page in one pass over plain slices. The formats are
//! the specification's (`Encodings.md` in apache/parquet-format), and the tests read what they
//! write back through parquet-rs's own reader.

/// Appends `value` as an unsigned LEB128 varint.
pub fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends `value` zigzag-encoded as a varint (small magnitudes, either sign, stay short).
pub fn zigzag(out: &mut Vec<u8>, value: i64) {
    varint(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// The bits needed to hold every value up to `max`.
pub fn bit_width(max: u64) -> u8 {
    (64 - max.leading_zeros()) as u8
}

/// Appends `values`, each in its low `width` bits, packed least significant bit first, and
/// pads the last byte with zeros. The caller pads the value count to what the format needs.
fn bit_pack(out: &mut Vec<u8>, values: impl Iterator<Item = u64>, width: u8) {
    if width == 0 {
        return;
    }
    let width = u32::from(width);
    let mut acc = 0u64;
    let mut bits = 0u32;
    for value in values {
        acc |= value << bits;
        bits += width;
        if bits >= 64 {
            out.extend_from_slice(&acc.to_le_bytes());
            bits -= 64;
            // The bits of `value` that did not fit; none when it ended exactly at the word.
            acc = if bits == 0 { 0 } else { value >> (width - bits) };
        }
    }
    let tail = bits.div_ceil(8) as usize;
    out.extend_from_slice(&acc.to_le_bytes()[..tail]);
}

/// The longest run of equal values starting at `values[0]`.
fn run_length(values: &[u32]) -> usize {
    let first = values[0];
    values.iter().take_while(|&&v| v == first).count()
}

/// Appends `values` in the RLE/bit-packing hybrid at `width` bits (at most 32): runs of eight or
/// more equal values as one RLE run, the rest in bit-packed groups of eight. Only the last
/// group of the page may be short; its padding is ignored by readers, who know the count.
pub fn rle_hybrid(out: &mut Vec<u8>, values: &[u32], width: u8) {
    debug_assert!(width <= 32);
    let value_bytes = usize::from(width).div_ceil(8);
    let mut i = 0;
    while i < values.len() {
        let run = run_length(&values[i..]);
        if run >= 8 {
            varint(out, (run as u64) << 1);
            out.extend_from_slice(&values[i].to_le_bytes()[..value_bytes]);
            i += run;
            continue;
        }
        // Bit-packed groups until a group boundary where a run of eight begins, at most 63
        // groups so the header stays one byte.
        let start = i;
        let mut groups = 0u64;
        loop {
            i = (i + 8).min(values.len());
            groups += 1;
            if i == values.len() || groups == 63 || run_length(&values[i..]) >= 8 {
                break;
            }
        }
        varint(out, (groups << 1) | 1);
        let padding = groups as usize * 8 - (i - start);
        let group_values = values[start..i].iter().map(|&v| u64::from(v)).chain(std::iter::repeat_n(0, padding));
        bit_pack(out, group_values, width);
    }
}

/// Values per DELTA_BINARY_PACKED block, and miniblocks per block (parquet-rs's choice too).
const DELTA_BLOCK: usize = 128;
const DELTA_MINIBLOCKS: usize = 4;
const DELTA_MINIBLOCK: usize = DELTA_BLOCK / DELTA_MINIBLOCKS;

/// Appends `values` as one DELTA_BINARY_PACKED stream. Deltas wrap in 64 bits, as the format
/// and every reader compute them, so unsigned ids above `i64::MAX` round-trip. A stream of one
/// repeated value skips the delta pass (see [`delta_constant`]).
pub fn delta_binary_packed(out: &mut Vec<u8>, values: &[i64]) {
    if let [first, ..] = *values
        && is_constant(values)
    {
        return delta_constant(out, first, values.len());
    }
    delta_packed(out, values);
}

/// DELTA_BINARY_PACKED computed block by block, whatever the values.
fn delta_packed(out: &mut Vec<u8>, values: &[i64]) {
    varint(out, DELTA_BLOCK as u64);
    varint(out, DELTA_MINIBLOCKS as u64);
    varint(out, values.len() as u64);
    zigzag(out, values.first().copied().unwrap_or(0));
    let mut deltas = [0i64; DELTA_BLOCK];
    for block_start in (1..values.len()).step_by(DELTA_BLOCK) {
        let block = &values[block_start - 1..(block_start + DELTA_BLOCK).min(values.len())];
        let n = block.len() - 1;
        for (slot, pair) in deltas.iter_mut().zip(block.windows(2)) {
            *slot = pair[1].wrapping_sub(pair[0]);
        }
        let min = min_of(&deltas[..n]);
        zigzag(out, min);
        let miniblocks = n.div_ceil(DELTA_MINIBLOCK);
        let mut widths = [0u8; DELTA_MINIBLOCKS];
        for (m, width) in widths.iter_mut().enumerate().take(miniblocks) {
            let chunk = &deltas[m * DELTA_MINIBLOCK..((m + 1) * DELTA_MINIBLOCK).min(n)];
            // A width depends only on the highest bit set, so an OR (which vectorizes) does
            // what a maximum would.
            let bits = chunk.iter().fold(0u64, |bits, &d| bits | d.wrapping_sub(min) as u64);
            *width = bit_width(bits);
        }
        out.extend_from_slice(&widths);
        for (m, &width) in widths.iter().enumerate().take(miniblocks) {
            let chunk = &deltas[m * DELTA_MINIBLOCK..((m + 1) * DELTA_MINIBLOCK).min(n)];
            let padding = DELTA_MINIBLOCK - chunk.len();
            let relative = chunk.iter().map(|&d| d.wrapping_sub(min) as u64).chain(std::iter::repeat_n(0, padding));
            bit_pack(out, relative, width);
        }
    }
}

/// The least of `values` (`i64::MAX` for none), over four independent minima: a single
/// running minimum is a chain of dependent compares, one per value.
fn min_of(values: &[i64]) -> i64 {
    let mut lanes = [i64::MAX; 4];
    let quads = values.chunks_exact(4);
    let rest = quads.remainder().iter().copied().min().unwrap_or(i64::MAX);
    for quad in quads {
        for (lane, &v) in lanes.iter_mut().zip(quad) {
            *lane = (*lane).min(v);
        }
    }
    lanes.into_iter().fold(rest, i64::min)
}

/// Whether every value equals the first; in blocks, so the comparison vectorizes and a page
/// that varies stops early.
pub fn is_constant<T: PartialEq + Copy>(values: &[T]) -> bool {
    let Some(&first) = values.first() else { return true };
    values.chunks(64).all(|block| block.iter().fold(true, |same, &v| same & (v == first)))
}

/// Appends `count` copies of `value` as one DELTA_BINARY_PACKED stream, without computing a
/// delta: every block's deltas are zero, so a block is its minimum delta (0) and its
/// miniblocks' widths (0), and no bits follow. `count` is at least one.
pub fn delta_constant(out: &mut Vec<u8>, value: i64, count: usize) {
    debug_assert!(count > 0, "a page has rows");
    varint(out, DELTA_BLOCK as u64);
    varint(out, DELTA_MINIBLOCKS as u64);
    varint(out, count as u64);
    zigzag(out, value);
    let blocks = count.saturating_sub(1).div_ceil(DELTA_BLOCK);
    out.resize(out.len() + blocks * (1 + DELTA_MINIBLOCKS), 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of the hybrid as the specification describes it, independent of the writer's
    /// choices of where runs end.
    fn read_hybrid(mut bytes: &[u8], width: u8, count: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let read_varint = |bytes: &mut &[u8]| {
            let (mut value, mut shift) = (0u64, 0);
            loop {
                let b = bytes[0];
                *bytes = &bytes[1..];
                value |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    return value;
                }
            }
        };
        while out.len() < count {
            let header = read_varint(&mut bytes);
            if header & 1 == 0 {
                let n = usize::from(width).div_ceil(8);
                let mut v = [0u8; 4];
                v[..n].copy_from_slice(&bytes[..n]);
                bytes = &bytes[n..];
                out.extend(std::iter::repeat_n(u32::from_le_bytes(v), (header >> 1) as usize));
            } else {
                let values = (header >> 1) as usize * 8;
                let mut bit = 0usize;
                for _ in 0..values {
                    let mut v = 0u32;
                    for b in 0..usize::from(width) {
                        let at = bit + b;
                        v |= u32::from((bytes[at / 8] >> (at % 8)) & 1) << b;
                    }
                    bit += usize::from(width);
                    out.push(v);
                }
                bytes = &bytes[values * usize::from(width) / 8..];
            }
        }
        out.truncate(count);
        out
    }

    #[test]
    fn the_hybrid_round_trips_runs_noise_and_short_tails() {
        let mut values: Vec<u32> = (0..1000).map(|i| (i * 7919 % 13) as u32).collect();
        values.extend(std::iter::repeat_n(5, 100));
        values.extend([1, 2, 3]);
        values.extend(std::iter::repeat_n(9, 9));
        for width in [4u8, 5, 17, 32] {
            let mut out = Vec::new();
            rle_hybrid(&mut out, &values, width);
            assert_eq!(read_hybrid(&out, width, values.len()), values, "width {width}");
        }
    }

    #[test]
    fn width_zero_encodes_a_single_key_in_a_few_bytes() {
        let mut out = Vec::new();
        rle_hybrid(&mut out, &[0; 5000], 0);
        assert_eq!(out, [0x90, 0x4e]);
    }

    #[test]
    fn a_constant_stream_is_the_general_encoders_output_for_equal_values() {
        for count in [1, 2, 127, 128, 129, 130, 257, 8192] {
            for value in [0, 7, -1, i64::MIN, i64::MAX, i64::from(u32::MAX as i32)] {
                let (mut general, mut constant) = (Vec::new(), Vec::new());
                delta_packed(&mut general, &vec![value; count]);
                delta_constant(&mut constant, value, count);
                assert_eq!(constant, general, "{count} copies of {value}");
            }
        }
    }

    #[test]
    fn varints_and_zigzag_match_the_specification() {
        let mut out = Vec::new();
        varint(&mut out, 300);
        zigzag(&mut out, -1);
        zigzag(&mut out, 1);
        zigzag(&mut out, i64::MIN);
        assert_eq!(out[..4], [0xac, 0x02, 0x01, 0x02]);
        assert_eq!(out.len(), 4 + 10);
    }
}

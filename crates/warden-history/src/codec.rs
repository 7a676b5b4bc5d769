//! The bytes of a block and of a journal batch. Pure: no IO.
//!
//! Values are integers already (see [`crate::quantize`]), so a column is
//! compressed losslessly: each value as the zigzag of itself, of its
//! difference to the one before, or of that difference's difference
//! (whichever is smallest for the block: counters such as uptime cost
//! nothing), packed in groups of 16 at the bit width of the group's
//! largest. Which slots hold
//! a value is a run-length list (a full block: two bytes). Every blob ends
//! with a 32-bit FNV-1a checksum; decoding a damaged blob is an error,
//! never a panic.

use crate::rollup::Agg;

const VERSION: u8 = 1;
const KIND_POINTS: u8 = 0;
const KIND_ROLLUP: u8 = 1;
const KIND_JOURNAL: u8 = 2;
const GROUP: usize = 16;
const FLAT: u8 = 0x80;

/// A blob that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    #[error("checksum mismatch")]
    Checksum,
    #[error("truncated")]
    Truncated,
    #[error("malformed")]
    Malformed,
}

/// The content of one block: one value per slot of the finest tier, or
/// one rollup per slot of a coarser tier; `None` is a gap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Points(Vec<Option<i64>>),
    Rollup(Vec<Option<Agg>>),
}

/// One journalled sample: series id, slot of the finest tier, value.
pub type JournalEntry = (u32, u64, i64);

pub fn encode_block(block: &Block) -> Vec<u8> {
    let mut out = vec![VERSION];
    match block {
        Block::Points(slots) => {
            out.push(KIND_POINTS);
            write_presence(&mut out, slots.iter().map(Option::is_some));
            let values: Vec<i64> = slots.iter().flatten().copied().collect();
            write_column(&mut out, &values);
        }
        Block::Rollup(slots) => {
            out.push(KIND_ROLLUP);
            write_presence(&mut out, slots.iter().map(Option::is_some));
            let present: Vec<&Agg> = slots.iter().flatten().collect();
            // (Kept absolute: as distances from the average they took 7 %
            // more on the bench's host mix.)
            let columns: [fn(&Agg) -> i64; 5] = [
                |a| a.avg,
                |a| a.min,
                |a| a.max,
                |a| a.last,
                |a| i64::from(a.count),
            ];
            for column in columns {
                let values: Vec<i64> = present.iter().map(|a| column(a)).collect();
                write_column(&mut out, &values);
            }
        }
    }
    seal(out)
}

pub fn decode_block(bytes: &[u8]) -> Result<Block, CodecError> {
    let body = unseal(bytes)?;
    let mut r = Reader { bytes: body, at: 0 };
    if r.byte()? != VERSION {
        return Err(CodecError::Malformed);
    }
    let kind = r.byte()?;
    let presence = read_presence(&mut r)?;
    let present = presence.iter().filter(|p| **p).count();
    let block = match kind {
        KIND_POINTS => {
            let values = read_column(&mut r, present)?;
            Block::Points(spread(&presence, values))
        }
        KIND_ROLLUP => {
            let avg = read_column(&mut r, present)?;
            let min = read_column(&mut r, present)?;
            let max = read_column(&mut r, present)?;
            let last = read_column(&mut r, present)?;
            let count = read_column(&mut r, present)?;
            let mut aggs = Vec::with_capacity(present);
            for i in 0..present {
                let count = u32::try_from(count[i]).map_err(|_| CodecError::Malformed)?;
                aggs.push(Agg {
                    min: min[i],
                    avg: avg[i],
                    max: max[i],
                    last: last[i],
                    count,
                });
            }
            Block::Rollup(spread(&presence, aggs))
        }
        _ => return Err(CodecError::Malformed),
    };
    if r.at != body.len() {
        return Err(CodecError::Malformed);
    }
    Ok(block)
}

pub fn encode_journal(entries: &[JournalEntry]) -> Vec<u8> {
    let mut sorted = entries.to_vec();
    // Stable: two samples of one slot keep their order (the later wins).
    sorted.sort_by_key(|e| e.0);
    let mut out = vec![VERSION, KIND_JOURNAL];
    write_varint(&mut out, sorted.len() as u64);
    let (mut series, mut slot) = (0u32, 0u64);
    for &(s, t, v) in &sorted {
        write_varint(&mut out, u64::from(s - series));
        write_varint(&mut out, zigzag(t.wrapping_sub(slot) as i64));
        write_varint(&mut out, zigzag(v));
        (series, slot) = (s, t);
    }
    seal(out)
}

pub fn decode_journal(bytes: &[u8]) -> Result<Vec<JournalEntry>, CodecError> {
    let body = unseal(bytes)?;
    let mut r = Reader { bytes: body, at: 0 };
    if r.byte()? != VERSION || r.byte()? != KIND_JOURNAL {
        return Err(CodecError::Malformed);
    }
    let n = usize::try_from(r.varint()?).map_err(|_| CodecError::Malformed)?;
    let mut out = Vec::with_capacity(n.min(body.len()));
    let (mut series, mut slot) = (0u32, 0u64);
    for _ in 0..n {
        let ds = u32::try_from(r.varint()?).map_err(|_| CodecError::Malformed)?;
        series = series.checked_add(ds).ok_or(CodecError::Malformed)?;
        slot = slot.wrapping_add(unzigzag(r.varint()?) as u64);
        out.push((series, slot, unzigzag(r.varint()?)));
    }
    if r.at != body.len() {
        return Err(CodecError::Malformed);
    }
    Ok(out)
}

fn spread<T>(presence: &[bool], values: Vec<T>) -> Vec<Option<T>> {
    let mut values = values.into_iter();
    presence
        .iter()
        .map(|p| if *p { values.next() } else { None })
        .collect()
}

fn fnv1a(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for b in bytes {
        hash ^= u32::from(*b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

fn seal(mut out: Vec<u8>) -> Vec<u8> {
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

fn unseal(bytes: &[u8]) -> Result<&[u8], CodecError> {
    let split = bytes.len().checked_sub(4).ok_or(CodecError::Truncated)?;
    let (body, sum) = bytes.split_at(split);
    let want = u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]);
    if fnv1a(body) == want {
        Ok(body)
    } else {
        Err(CodecError::Checksum)
    }
}

pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn write_presence(out: &mut Vec<u8>, presence: impl Iterator<Item = bool>) {
    // Alternating run lengths, starting with a run of gaps (maybe empty).
    let mut runs = Vec::new();
    let (mut current, mut length) = (false, 0u64);
    for p in presence {
        if p == current {
            length += 1;
        } else {
            runs.push(length);
            (current, length) = (p, 1);
        }
    }
    runs.push(length);
    write_varint(out, runs.len() as u64);
    for run in runs {
        write_varint(out, run);
    }
}

fn read_presence(r: &mut Reader) -> Result<Vec<bool>, CodecError> {
    let runs = r.varint()?;
    if runs > (r.bytes.len() - r.at) as u64 {
        return Err(CodecError::Malformed);
    }
    let mut out = Vec::new();
    let mut present = false;
    for _ in 0..runs {
        let length = r.varint()?;
        if out.len() as u64 + length > 1 << 20 {
            return Err(CodecError::Malformed);
        }
        out.extend(std::iter::repeat_n(present, length as usize));
        present = !present;
    }
    Ok(out)
}

fn deltas(values: &[i64], order: usize) -> Vec<u64> {
    let mut current: Vec<i64> = values.to_vec();
    for _ in 0..order {
        let mut prev = 0i64;
        for v in current.iter_mut() {
            let d = v.wrapping_sub(prev);
            prev = *v;
            *v = d;
        }
    }
    current.into_iter().map(zigzag).collect()
}

fn undeltas(mut values: Vec<i64>, order: usize) -> Vec<i64> {
    for _ in 0..order {
        let mut acc = 0i64;
        for v in values.iter_mut() {
            acc = acc.wrapping_add(*v);
            *v = acc;
        }
    }
    values
}

fn write_column(out: &mut Vec<u8>, values: &[i64]) {
    let encode = |order: usize| {
        let transformed = deltas(values, order);
        // The first `order` entries carry the level (and slope): varints,
        // so one large start does not widen a whole packed group.
        let head = order.min(transformed.len());
        // Flag 0x80: the rest is all zero (a flat or steady series), and
        // not written.
        let flat = transformed[head..].iter().all(|v| *v == 0);
        let mut bytes = vec![order as u8 | if flat { FLAT } else { 0 }];
        for v in &transformed[..head] {
            write_varint(&mut bytes, *v);
        }
        if !flat {
            bytes.extend_from_slice(&pack(&transformed[head..]));
        }
        bytes
    };
    // The values themselves, their differences, or the differences'
    // differences: whichever is smallest for this block.
    let best = [encode(0), encode(1), encode(2)]
        .into_iter()
        .min_by_key(Vec::len)
        .unwrap_or_default();
    out.extend_from_slice(&best);
}

fn read_column(r: &mut Reader, n: usize) -> Result<Vec<i64>, CodecError> {
    let mode = r.byte()?;
    let order = usize::from(mode & !FLAT);
    if order > 2 {
        return Err(CodecError::Malformed);
    }
    let head = order.min(n);
    let mut zigzagged = Vec::with_capacity(n);
    for _ in 0..head {
        zigzagged.push(r.varint()?);
    }
    if mode & FLAT != 0 {
        zigzagged.resize(n, 0);
    } else {
        zigzagged.extend(unpack(r, n - head)?);
    }
    Ok(undeltas(
        zigzagged.into_iter().map(unzigzag).collect(),
        order,
    ))
}

fn pack(values: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    for group in values.chunks(GROUP) {
        let width = group
            .iter()
            .map(|v| 64 - v.leading_zeros())
            .max()
            .unwrap_or(0);
        out.push(width as u8);
        let mut acc: u128 = 0;
        let mut bits = 0u32;
        for &v in group {
            acc |= u128::from(v) << bits;
            bits += width;
            while bits >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                bits -= 8;
            }
        }
        if bits > 0 {
            out.push(acc as u8);
        }
    }
    out
}

fn unpack(r: &mut Reader, n: usize) -> Result<Vec<u64>, CodecError> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let in_group = (n - out.len()).min(GROUP);
        let width = u32::from(r.byte()?);
        if width > 64 {
            return Err(CodecError::Malformed);
        }
        let bytes = (in_group * width as usize).div_ceil(8);
        let chunk = r.take(bytes)?;
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let mut acc: u128 = 0;
        let mut bits = 0u32;
        let mut next = chunk.iter();
        for _ in 0..in_group {
            while bits < width {
                let b = next.next().ok_or(CodecError::Truncated)?;
                acc |= u128::from(*b) << bits;
                bits += 8;
            }
            out.push((acc as u64) & mask);
            acc = if width == 0 { acc } else { acc >> width };
            bits -= width;
        }
    }
    Ok(out)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, CodecError> {
        let b = *self.bytes.get(self.at).ok_or(CodecError::Truncated)?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        let end = self.at.checked_add(n).ok_or(CodecError::Malformed)?;
        let slice = self.bytes.get(self.at..end).ok_or(CodecError::Truncated)?;
        self.at = end;
        Ok(slice)
    }

    fn varint(&mut self) -> Result<u64, CodecError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(CodecError::Malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn agg() -> impl Strategy<Value = Agg> {
        (
            any::<i64>(),
            any::<i64>(),
            any::<i64>(),
            any::<i64>(),
            any::<u32>(),
        )
            .prop_map(|(min, avg, max, last, count)| Agg {
                min,
                avg,
                max,
                last,
                count,
            })
    }

    proptest! {
        #[test]
        fn points_round_trip(slots in proptest::collection::vec(proptest::option::of(any::<i64>()), 0..300)) {
            let block = Block::Points(slots);
            prop_assert_eq!(decode_block(&encode_block(&block)), Ok(block));
        }

        #[test]
        fn small_walks_round_trip(start in -1_000_000i64..1_000_000, steps in proptest::collection::vec(proptest::option::of(-500i64..500), 0..300)) {
            let mut v = start;
            let slots: Vec<Option<i64>> = steps.iter().map(|s| s.map(|d| { v += d; v })).collect();
            let block = Block::Points(slots);
            prop_assert_eq!(decode_block(&encode_block(&block)), Ok(block));
        }

        #[test]
        fn rollups_round_trip(slots in proptest::collection::vec(proptest::option::of(agg()), 0..100)) {
            let block = Block::Rollup(slots);
            prop_assert_eq!(decode_block(&encode_block(&block)), Ok(block));
        }

        #[test]
        fn journals_round_trip(entries in proptest::collection::vec((0u32..5000, any::<u64>(), any::<i64>()), 0..300)) {
            let mut want = entries.clone();
            want.sort_by_key(|e| e.0);
            prop_assert_eq!(decode_journal(&encode_journal(&entries)), Ok(want));
        }

        #[test]
        fn damage_is_an_error_never_a_panic(slots in proptest::collection::vec(proptest::option::of(-1000i64..1000), 1..200), at in any::<usize>(), flip in 1u8..=255) {
            let mut bytes = encode_block(&Block::Points(slots));
            let i = at % bytes.len();
            bytes[i] ^= flip;
            prop_assert!(decode_block(&bytes).is_err());
            // Truncations too.
            prop_assert!(decode_block(&bytes[..i]).is_err());
        }
    }

    #[test]
    fn regular_data_is_small() {
        // A full window of a counter that grows by 10 every slot.
        let uptime = Block::Points((0..90).map(|i| Some(1_000_000 + 10 * i)).collect());
        assert!(
            encode_block(&uptime).len() <= 16,
            "{}",
            encode_block(&uptime).len()
        );
        // An idle interface: all zero.
        let idle = Block::Points(vec![Some(0); 90]);
        assert!(encode_block(&idle).len() <= 12);
        // A gap in the middle costs a few bytes, not a value per slot.
        let mut gappy = vec![Some(5); 90];
        for slot in gappy.iter_mut().skip(30).take(20) {
            *slot = None;
        }
        let block = Block::Points(gappy);
        assert_eq!(decode_block(&encode_block(&block)), Ok(block));
    }

    #[test]
    fn zigzag_is_a_bijection_on_edges() {
        for v in [0, 1, -1, i64::MAX, i64::MIN, 63, -64] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }
}

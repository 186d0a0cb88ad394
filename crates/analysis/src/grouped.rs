//! Partial summaries by key, in bounded memory: a map of them up to a budget, spilled through
//! an external sort ([`crate::spill`]) beyond it, and read back in key order with each key's
//! partials merged. `stats` does this for durations by name (`stats::scan`); `analyze` for its
//! kernels' dispatches, idle times and counters, so that none of them grows with the number of
//! kernels beyond `--memory`.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::spill::{Reader, Sorted, Sorter};

/// What a [`Grouped`] holds per key: a summary that two halves of the same records merge into.
pub trait Partial: Sized {
    /// Folds in `later`, the summary of records that came after this one's.
    fn merge(&mut self, later: Self);
    /// Appends the summary's bytes.
    fn encode(&self, out: &mut Vec<u8>);
    /// A summary from [`Partial::encode`]'s bytes; `None` if they are not such bytes.
    fn decode(bytes: &[u8]) -> Option<Self>;
    /// About the bytes it holds on the heap.
    fn footprint(&self) -> usize;
}

/// A key's bytes in the map beside the key and the value's own: the table's slot (a hash table
/// is up to half empty, so two) and the allocator's header on the key.
const ENTRY_BYTES: usize = 2 * (std::mem::size_of::<Vec<u8>>() + 64) + 16;

/// Partials by key, spilled in arrival order beyond a budget.
pub struct Grouped<V> {
    map: HashMap<Vec<u8>, V>,
    bytes: usize,
    limit: usize,
    sorter: Sorter,
    value: Vec<u8>,
}

impl<V: Partial> Grouped<V> {
    /// A map of up to `limit` bytes, whose spills go to a sort of `sort` bytes.
    pub fn with_budget(limit: usize, sort: usize) -> Grouped<V> {
        Grouped {
            map: HashMap::new(),
            bytes: 0,
            limit: limit.max(1),
            sorter: Sorter::with_budget(sort),
            value: Vec::new(),
        }
    }

    /// Updates `key`'s partial with `update`, starting it from `start()` where the map has none.
    pub fn update(&mut self, key: &[u8], start: impl FnOnce() -> V, update: impl FnOnce(&mut V)) -> Result<()> {
        match self.map.get_mut(key) {
            Some(known) => {
                let before = known.footprint();
                update(known);
                self.bytes += known.footprint().saturating_sub(before);
            }
            None => {
                let mut value = start();
                update(&mut value);
                self.bytes += key.len() + ENTRY_BYTES + value.footprint();
                self.map.insert(key.to_vec(), value);
            }
        }
        if self.bytes >= self.limit { self.spill() } else { Ok(()) }
    }

    /// Moves the map's partials to the sort.
    fn spill(&mut self) -> Result<()> {
        self.bytes = 0;
        for (key, value) in self.map.drain() {
            self.value.clear();
            value.encode(&mut self.value);
            self.sorter.push(&key, &self.value)?;
        }
        self.map.shrink_to(0);
        Ok(())
    }

    /// Every key's partials, merged, in key order.
    pub fn finish(mut self) -> Result<Finished<V>> {
        self.spill()?;
        Ok(Finished { sorted: self.sorter.finish()?, _value: std::marker::PhantomData })
    }
}

impl<V> std::fmt::Debug for Grouped<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Grouped({} keys, {} bytes, {:?})", self.map.len(), self.bytes, self.sorter)
    }
}

/// What a [`Grouped`] collected, to be read in key order (as many times as needed).
pub struct Finished<V> {
    sorted: Sorted,
    _value: std::marker::PhantomData<V>,
}

impl<V: Partial> Finished<V> {
    /// A reader from the first key.
    pub fn reader(&self) -> Result<GroupReader<'_, V>> {
        Ok(GroupReader { reader: self.sorted.reader()?, pending: None })
    }
}

impl<V> std::fmt::Debug for Finished<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Finished({:?})", self.sorted)
    }
}

/// Reads each key once, its partials merged in the order they came.
pub struct GroupReader<'a, V> {
    reader: Reader<'a>,
    pending: Option<(Vec<u8>, V)>,
}

impl<V> std::fmt::Debug for GroupReader<'_, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GroupReader({:?})", self.reader)
    }
}

impl<V: Partial> GroupReader<'_, V> {
    /// The next key and its merged partial, or `None` after the last.
    #[allow(clippy::should_implement_trait)] // fallible
    pub fn next(&mut self) -> Result<Option<(Vec<u8>, V)>> {
        let broken = || Error::Invalid("a partial summary did not come back from the external sort".into());
        loop {
            let Some((key, value)) = self.reader.next()? else { return Ok(self.pending.take()) };
            let value = V::decode(value).ok_or_else(broken)?;
            match &mut self.pending {
                Some((known, merged)) if known.as_slice() == key => merged.merge(value),
                _ => {
                    if let Some(done) = self.pending.replace((key.to_vec(), value)) {
                        return Ok(Some(done));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::summary::Summary;

    fn grouped(limit: usize) -> Vec<(Vec<u8>, u64, u64)> {
        let mut g: Grouped<Summary> = Grouped::with_budget(limit, limit);
        for i in 0..5_000u64 {
            let key = format!("k{}", (i * 7_919) % 700);
            g.update(key.as_bytes(), Summary::default, |s| s.add(i)).unwrap();
        }
        let finished = g.finish().unwrap();
        let mut reader = finished.reader().unwrap();
        let mut out = Vec::new();
        while let Some((key, s)) = reader.next().unwrap() {
            out.push((key, s.count, s.sum as u64));
        }
        out
    }

    #[test]
    fn spilled_and_roomy_groups_agree() {
        let roomy = grouped(1 << 30);
        assert_eq!(roomy.len(), 700);
        assert!(roomy.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(roomy.iter().map(|r| r.1).sum::<u64>(), 5_000);
        assert_eq!(grouped(2 << 10), roomy);
    }
}

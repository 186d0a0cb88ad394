//! Rows kept in an external sort's runs ([`crate::spill`]) rather than in memory, read back in
//! the sort's order as many times as the outputs need: `stats` keeps its names' rows so, largest
//! total first, and `ranks` its collectives, in order or longest wait first. `--top` keeps the
//! first rows of the order; the sort holds them all, and the reader stops after those.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::spill::Sorted;

/// How a record of the sort becomes a row again: the inverse of what its command pushed.
pub trait Decode {
    type Row;

    /// The row of one record; an error where its bytes are not what was pushed.
    fn decode(&self, key: &[u8], value: &[u8]) -> Result<Self::Row>;
}

/// A sort's rows, the first `shown` of them: read them with [`SortedRows::for_each`].
#[derive(Debug)]
pub struct SortedRows<D> {
    sorted: Sorted,
    shown: usize,
    omitted: usize,
    decoder: D,
}

impl<D: Decode> SortedRows<D> {
    /// The first `shown` of `sorted`'s rows, decoded with `decoder`; `omitted` says how many
    /// follow them.
    pub fn new(sorted: Sorted, shown: usize, omitted: usize, decoder: D) -> SortedRows<D> {
        SortedRows { sorted, shown, omitted, decoder }
    }

    /// How many rows are shown.
    pub fn len(&self) -> usize {
        self.shown
    }

    /// Whether none are.
    pub fn is_empty(&self) -> bool {
        self.shown == 0
    }

    /// Rows left out by `--top`.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// Hands each shown row to `f`, in the sort's order.
    pub fn for_each<E: From<Error>>(
        &self,
        mut f: impl FnMut(D::Row) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let mut reader = self.sorted.reader()?;
        for _ in 0..self.shown {
            let Some((key, value)) = reader.next()? else { break };
            f(self.decoder.decode(key, value)?)?;
        }
        Ok(())
    }

    /// Every shown row, in memory: for tests and small outputs.
    pub fn to_vec(&self) -> Result<Vec<D::Row>> {
        let mut rows = Vec::with_capacity(self.shown.min(1 << 16));
        self.for_each(|row| {
            rows.push(row);
            Ok::<(), Error>(())
        })?;
        Ok(rows)
    }
}

/// Serialised as the list of its rows.
impl<D: Decode> schemars::JsonSchema for SortedRows<D>
where
    D::Row: schemars::JsonSchema,
{
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("{}List", D::Row::schema_name()).into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Vec::<D::Row>::json_schema(generator)
    }
}

impl<D: Decode> Serialize for SortedRows<D>
where
    D::Row: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let mut seq = serializer.serialize_seq(Some(self.shown))?;
        // The serializer's own error is kept apart, so that it comes back as it was rather than
        // as the reader's.
        let mut failed = None;
        let read = self.for_each(|row| {
            seq.serialize_element(&row).map_err(|e| {
                failed = Some(e);
                Error::Invalid(String::new())
            })
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(S::Error::custom)?;
        seq.end()
    }
}

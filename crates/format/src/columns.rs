//! Column buffers for one table, declared once per table by [`columns!`]: the Arrow schema, the
//! typed vectors rows are appended to, and the conversion to a record batch all come from the
//! same field list, so they cannot drift apart.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int32Array, Int64Array, StringArray, UInt32Array, UInt64Array,
};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

/// A table's column buffers, as [`columns!`] declares them: what a writer needs of any table.
pub trait Rows: Default + std::fmt::Debug {
    /// Rows buffered.
    fn len(&self) -> usize;
    /// Whether no rows are buffered.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The buffered rows as arrays in schema order; the buffers are left empty.
    fn finish(&mut self) -> Vec<ArrayRef>;
}

/// A column's in-memory buffer, by Arrow type. `push` runs once per row and column, in the
/// recorder's crate: every implementation is `#[inline]`, or each would be a call.
pub trait Column: Default {
    /// The value appended for one row.
    type Value<'a>;
    /// The Arrow type.
    fn data_type() -> DataType;
    /// Whether the column may hold nulls.
    const NULLABLE: bool;
    /// Appends one value.
    fn push(&mut self, value: Self::Value<'_>);
    /// Moves the buffered values into an Arrow array, leaving the buffer empty.
    fn finish(&mut self) -> ArrayRef;
}

macro_rules! primitive {
    ($name:ident, $t:ty, $array:ident, $dt:expr) => {
        #[doc = concat!("A non-null `", stringify!($t), "` column.")]
        #[derive(Debug, Default)]
        pub struct $name(Vec<$t>);

        impl Column for $name {
            type Value<'a> = $t;
            fn data_type() -> DataType {
                $dt
            }
            const NULLABLE: bool = false;
            #[inline]
            fn push(&mut self, value: $t) {
                self.0.push(value);
            }
            fn finish(&mut self) -> ArrayRef {
                let capacity = self.0.capacity();
                Arc::new($array::from(std::mem::replace(&mut self.0, Vec::with_capacity(capacity))))
            }
        }
    };
}

primitive!(U64, u64, UInt64Array, DataType::UInt64);
primitive!(I64, i64, Int64Array, DataType::Int64);
primitive!(U32, u32, UInt32Array, DataType::UInt32);
primitive!(I32, i32, Int32Array, DataType::Int32);
primitive!(F64, f64, Float64Array, DataType::Float64);

/// Runs of equal values: for a column whose value rarely changes (the process id; on AMD, the
/// columns only CUDA fills), a row costs a compare and a count rather than a store into a
/// buffer of its own, and the values are laid out once, when the batch is finished. On the
/// dispatch table, a third of the columns are such; a change of value costs a cold call.
#[derive(Debug, Default)]
pub struct Runs<T> {
    last: T,
    /// Rows of `last` since the last change (0 before the first row, when `last` is a default
    /// that any first value may extend).
    count: usize,
    earlier: Vec<(T, usize)>,
}

impl<T: Copy + PartialEq> Runs<T> {
    #[inline]
    fn push(&mut self, value: T) {
        if value == self.last {
            self.count += 1;
        } else {
            self.change(value);
        }
    }

    #[cold]
    #[inline(never)]
    fn change(&mut self, value: T) {
        if self.count > 0 {
            self.earlier.push((self.last, self.count));
        }
        self.last = value;
        self.count = 1;
    }

    /// Every run, in row order, leaving none.
    fn take(&mut self) -> impl Iterator<Item = (T, usize)> + '_ {
        let last = (self.last, std::mem::take(&mut self.count));
        self.earlier.drain(..).chain(std::iter::once(last).filter(|&(_, n)| n > 0))
    }

    /// Every value, in row order, leaving none.
    fn values(&mut self) -> Vec<T> {
        let rows = self.earlier.iter().map(|&(_, n)| n).sum::<usize>() + self.count;
        let mut values = Vec::with_capacity(rows);
        for (value, n) in self.take() {
            values.resize(values.len() + n, value);
        }
        values
    }
}

macro_rules! runs {
    ($name:ident, $t:ty, $array:ident, $dt:expr) => {
        #[doc = concat!("A non-null `", stringify!($t), "` column whose value rarely changes: see [`Runs`].")]
        #[derive(Debug, Default)]
        pub struct $name(Runs<$t>);

        impl Column for $name {
            type Value<'a> = $t;
            fn data_type() -> DataType {
                $dt
            }
            const NULLABLE: bool = false;
            #[inline]
            fn push(&mut self, value: $t) {
                self.0.push(value);
            }
            fn finish(&mut self) -> ArrayRef {
                Arc::new($array::from(self.0.values()))
            }
        }
    };
}

runs!(SameU64, u64, UInt64Array, DataType::UInt64);
runs!(SameU32, u32, UInt32Array, DataType::UInt32);
runs!(SameI32, i32, Int32Array, DataType::Int32);

/// A nullable `i32` column whose value rarely changes (AMD's stream and pipe ids are always
/// null): see [`Runs`].
#[derive(Debug, Default)]
pub struct SameOptI32(Runs<Option<i32>>);

impl Column for SameOptI32 {
    type Value<'a> = Option<i32>;
    fn data_type() -> DataType {
        DataType::Int32
    }
    const NULLABLE: bool = true;
    #[inline]
    fn push(&mut self, value: Option<i32>) {
        self.0.push(value);
    }
    fn finish(&mut self) -> ArrayRef {
        let runs: Vec<(Option<i32>, usize)> = self.0.take().collect();
        let rows = runs.iter().map(|&(_, n)| n).sum();
        if runs.iter().all(|(value, _)| value.is_none()) {
            return Arc::new(Int32Array::new_null(rows));
        }
        let (mut values, mut valid) = (Vec::with_capacity(rows), Vec::with_capacity(rows));
        for (value, n) in runs {
            values.resize(values.len() + n, value.unwrap_or_default());
            valid.resize(valid.len() + n, value.is_some());
        }
        let nulls = valid.contains(&false).then(|| NullBuffer::from(valid.as_slice()));
        Arc::new(Int32Array::new(values.into(), nulls))
    }
}

/// A nullable `i32` column (a value the SDK version may not provide): values and validity
/// kept apart, as Arrow holds them, and validity as plain flags until the batch is finished,
/// so a row costs two stores rather than a bitmap update.
#[derive(Debug, Default)]
pub struct OptI32 {
    values: Vec<i32>,
    valid: Vec<bool>,
}

impl Column for OptI32 {
    type Value<'a> = Option<i32>;
    fn data_type() -> DataType {
        DataType::Int32
    }
    const NULLABLE: bool = true;
    #[inline]
    fn push(&mut self, value: Option<i32>) {
        self.values.push(value.unwrap_or_default());
        self.valid.push(value.is_some());
    }
    fn finish(&mut self) -> ArrayRef {
        let capacity = self.values.capacity();
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(capacity));
        let nulls = self.valid.contains(&false).then(|| NullBuffer::from(self.valid.as_slice()));
        self.valid.clear();
        Arc::new(Int32Array::new(values.into(), nulls))
    }
}

macro_rules! optional {
    ($name:ident, $t:ty, $array:ident, $dt:expr) => {
        #[doc = concat!("A nullable `", stringify!($t), "` column (a reading a device may not report): see [`OptI32`].")]
        #[derive(Debug, Default)]
        pub struct $name {
            values: Vec<$t>,
            valid: Vec<bool>,
        }

        impl Column for $name {
            type Value<'a> = Option<$t>;
            fn data_type() -> DataType {
                $dt
            }
            const NULLABLE: bool = true;
            #[inline]
            fn push(&mut self, value: Option<$t>) {
                self.values.push(value.unwrap_or_default());
                self.valid.push(value.is_some());
            }
            fn finish(&mut self) -> ArrayRef {
                let values = std::mem::take(&mut self.values);
                let nulls = self.valid.contains(&false).then(|| NullBuffer::from(self.valid.as_slice()));
                self.valid.clear();
                Arc::new($array::new(values.into(), nulls))
            }
        }
    };
}

optional!(OptU64, u64, UInt64Array, DataType::UInt64);
optional!(OptU32, u32, UInt32Array, DataType::UInt32);
optional!(OptF64, f64, Float64Array, DataType::Float64);

/// A UTF-8 column.
#[derive(Debug, Default)]
pub struct Str(StringBuilder);

impl Column for Str {
    type Value<'a> = &'a str;
    fn data_type() -> DataType {
        DataType::Utf8
    }
    const NULLABLE: bool = false;
    #[inline]
    fn push(&mut self, value: &str) {
        self.0.append_value(value);
    }
    fn finish(&mut self) -> ArrayRef {
        let array: StringArray = self.0.finish();
        Arc::new(array)
    }
}

/// A dictionary-encoded UTF-8 column, for names that repeat on every row (kernels, API
/// operations): a row costs a 4-byte key whatever the name's length, and neither this table nor
/// the Parquet writer hashes the string again per row.
///
/// Keys are found by the address of the name's `Arc`, which the dictionary keeps alive, so an
/// address cannot be reused by another name while it is a key. The same text behind two `Arc`s
/// gets two keys with equal values, which readers cannot tell apart. A small two-way cache in
/// front of the map makes the common case (a few kernels, taking turns) a compare or two.
#[derive(Debug)]
pub struct Dict {
    keys: Vec<i32>,
    values: Vec<Arc<str>>,
    index: HashMap<usize, i32, BuildHasherDefault<AddressHasher>>,
    /// (address, key) of names recently looked up, two ways per set, the set chosen by a hash
    /// of the address; address 0 is empty (no `Arc` lives there).
    recent: Box<[(usize, i32); 2 * RECENT_SETS]>,
}

/// Sets of [`Dict`]'s cache: room for more than the kernels of a typical hot loop.
const RECENT_SETS: usize = 128;

impl Default for Dict {
    fn default() -> Dict {
        Dict {
            keys: Vec::new(),
            values: Vec::new(),
            index: HashMap::default(),
            recent: Box::new([(0, 0); 2 * RECENT_SETS]),
        }
    }
}

/// Hashes an address or an id: one multiplication, as both are already well spread.
#[derive(Debug, Default)]
pub struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = value.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(26);
    }
    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
}

impl Dict {
    /// The key of `value`, added to the dictionary if new.
    #[inline]
    fn key(&mut self, value: &Arc<str>) -> i32 {
        let address = Arc::as_ptr(value).cast::<u8>() as usize;
        let set =
            ((address as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT_SETS.trailing_zeros())) as usize;
        let ways = &self.recent[2 * set..2 * set + 2];
        if ways[0].0 == address {
            return ways[0].1;
        }
        if ways[1].0 == address {
            return ways[1].1;
        }
        self.key_slow(value, address, set)
    }

    #[cold]
    #[inline(never)]
    fn key_slow(&mut self, value: &Arc<str>, address: usize, set: usize) -> i32 {
        let key = *self.index.entry(address).or_insert_with(|| {
            self.values.push(value.clone());
            self.values.len() as i32 - 1
        });
        // The set's newer way moves to the older: two names taking turns both stay.
        self.recent[2 * set + 1] = self.recent[2 * set];
        self.recent[2 * set] = (address, key);
        key
    }
}

impl Column for Dict {
    type Value<'a> = &'a Arc<str>;
    fn data_type() -> DataType {
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
    }
    const NULLABLE: bool = false;
    #[inline]
    fn push(&mut self, value: &Arc<str>) {
        let key = self.key(value);
        self.keys.push(key);
    }
    fn finish(&mut self) -> ArrayRef {
        let capacity = self.keys.capacity();
        let keys = Int32Array::from(std::mem::replace(&mut self.keys, Vec::with_capacity(capacity)));
        let values = StringArray::from_iter_values(self.values.iter().map(|v| &**v));
        // SAFETY: every key came from `Dict::key`, an index into `values`, which only grows;
        // the check `try_new` would repeat is a pass over every row of the batch.
        let array = unsafe { DictionaryArray::<Int32Type>::new_unchecked(keys, Arc::new(values)) };
        Arc::new(array)
    }
}

/// A nullable UTF-8 column.
#[derive(Debug, Default)]
pub struct OptStr(StringBuilder);

impl Column for OptStr {
    type Value<'a> = Option<&'a str>;
    fn data_type() -> DataType {
        DataType::Utf8
    }
    const NULLABLE: bool = true;
    #[inline]
    fn push(&mut self, value: Option<&str>) {
        self.0.append_option(value);
    }
    fn finish(&mut self) -> ArrayRef {
        let array: StringArray = self.0.finish();
        Arc::new(array)
    }
}

/// Declares a table's columns: `columns! { Name / NameRow { field: ColumnType, ... } }` gives a
/// struct of column buffers (with its Arrow schema, `len()` and `finish()`), and the row struct
/// that is the only way to add to them: every column's value in one literal, so a row cannot be
/// pushed incomplete, and a new column is a compile error at every producer until it fills it.
///
/// A run of nullable columns that one value carries whole, from its producer to its readers
/// (a GPU's readings), may be declared as a group among the columns:
/// `..field: Group { column: OptF64, ... }`. The group's type is declared with its columns, the
/// row holds it as one field, the columns keep their place in the schema, and
/// `Group::columns` and `Group::read` take it back from a batch ([`crate::read::ReadBack`]).
macro_rules! columns {
    (
        $(#[$doc:meta])* $name:ident / $row:ident {
            $($field:ident: $kind:ident,)*
            $(
                $(#[$group_doc:meta])*
                ..$group:ident: $group_type:ident { $($member:ident: $member_kind:ident,)* }
                $($after:ident: $after_kind:ident,)*
            )?
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub struct $name {
            $($field: $crate::columns::$kind,)*
            $(
                $($member: $crate::columns::$member_kind,)*
                $($after: $crate::columns::$after_kind,)*
            )?
            rows: usize,
        }

        #[doc = concat!("One row of [`", stringify!($name), "`], every column's value.")]
        #[derive(Debug, Clone, Copy)]
        pub struct $row<'a> {
            $(
                #[doc = concat!("`", stringify!($field), "`.")]
                pub $field: <$crate::columns::$kind as $crate::columns::Column>::Value<'a>,
            )*
            $(
                #[doc = concat!("The columns of [`", stringify!($group_type), "`].")]
                pub $group: $group_type,
                $(
                    #[doc = concat!("`", stringify!($after), "`.")]
                    pub $after: <$crate::columns::$after_kind as $crate::columns::Column>::Value<'a>,
                )*
            )?
        }

        $(
            $(#[$group_doc])*
            #[derive(Debug, Clone, Copy, Default, PartialEq)]
            pub struct $group_type {
                $(
                    #[doc = concat!("`", stringify!($member), "`.")]
                    pub $member: <$crate::columns::$member_kind as $crate::columns::Column>::Value<'static>,
                )*
            }

            impl $group_type {
                /// The group's columns in batch `b`, in their order, for [`Self::read`]: `None`
                /// for a column the file lacks (a file older than the column).
                pub fn columns<'a>(
                    b: &$crate::read::Batch<'a>,
                ) -> $crate::Result<Vec<Option<$crate::read::Col<'a>>>> {
                    Ok(vec![$(b.col_opt(stringify!($member))?,)*])
                }

                /// Row `i` of the group, from its [`Self::columns`]: null where the file lacks
                /// the column.
                pub fn read(columns: &[Option<$crate::read::Col<'_>>], i: usize) -> $group_type {
                    use $crate::read::ReadBack as _;
                    let mut columns = columns.iter();
                    $group_type {
                        $($member: $crate::columns::$member_kind::read(
                            columns.next().and_then(Option::as_ref),
                            i,
                        ),)*
                    }
                }
            }
        )?

        impl $name {
            /// The Arrow schema of the table: its rows' columns, then the origin's
            /// ([`crate::origin::Origin`]), which its writer adds per batch.
            pub fn schema() -> arrow_schema::Schema {
                use $crate::columns::Column as _;
                let mut fields = vec![
                    $(arrow_schema::Field::new(
                        stringify!($field),
                        <$crate::columns::$kind as $crate::columns::Column>::data_type(),
                        $crate::columns::$kind::NULLABLE,
                    ),)*
                    $(
                        $(arrow_schema::Field::new(
                            stringify!($member),
                            <$crate::columns::$member_kind as $crate::columns::Column>::data_type(),
                            $crate::columns::$member_kind::NULLABLE,
                        ),)*
                        $(arrow_schema::Field::new(
                            stringify!($after),
                            <$crate::columns::$after_kind as $crate::columns::Column>::data_type(),
                            $crate::columns::$after_kind::NULLABLE,
                        ),)*
                    )?
                ];
                fields.extend($crate::origin::Origin::fields());
                arrow_schema::Schema::new(fields)
            }

            /// Appends one row. Always inlined: the row's values then go from the producer's
            /// registers into the columns without the row ever being built in memory.
            #[inline(always)]
            pub fn push(&mut self, row: $row<'_>) {
                use $crate::columns::Column as _;
                $(self.$field.push(row.$field);)*
                $(
                    $(self.$member.push(row.$group.$member);)*
                    $(self.$after.push(row.$after);)*
                )?
                self.rows += 1;
            }

        }

        impl $crate::columns::Rows for $name {
            fn len(&self) -> usize {
                self.rows
            }

            fn finish(&mut self) -> Vec<arrow_array::ArrayRef> {
                use $crate::columns::Column as _;
                self.rows = 0;
                vec![
                    $(self.$field.finish(),)*
                    $(
                        $(self.$member.finish(),)*
                        $(self.$after.finish(),)*
                    )?
                ]
            }
        }
    };
}
pub(crate) use columns;

#[cfg(test)]
mod tests {
    use arrow_array::Array as _;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, UInt64Type};

    use super::*;

    #[test]
    fn runs_lay_out_every_row_in_order_and_start_again_after_a_batch() {
        let mut column = SameU64::default();
        // Starts with the default value, changes, comes back, and ends on a run of one.
        let rows = [0, 0, 7, 7, 7, 0, u64::MAX];
        for batch in 0..2 {
            for &v in &rows[batch..] {
                column.push(v);
            }
            let array = column.finish();
            assert_eq!(array.as_primitive::<UInt64Type>().values().as_ref(), &rows[batch..], "batch {batch}");
        }
        assert_eq!(column.finish().len(), 0, "nothing left over");
    }

    #[test]
    fn nullable_runs_keep_their_nulls() {
        let mut column = SameOptI32::default();
        for _ in 0..5 {
            column.push(None);
        }
        let array = column.finish();
        assert_eq!((array.len(), array.null_count()), (5, 5));
        let rows = [None, Some(3), Some(3), None, Some(0)];
        for v in rows {
            column.push(v);
        }
        let array = column.finish();
        assert_eq!(array.as_primitive::<Int32Type>().iter().collect::<Vec<_>>(), rows);
    }
}

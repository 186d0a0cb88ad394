//! Column buffers for one table, declared once per table by [`columns!`]: the Arrow schema, the
//! typed vectors rows are appended to, and the conversion to a record batch all come from the
//! same field list, so they cannot drift apart.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, Int32Array, Int64Array, StringArray, UInt32Array, UInt64Array};
use arrow_schema::DataType;

/// A column's in-memory buffer, by Arrow type.
pub trait Column: Default {
    /// The value appended for one row.
    type Value<'a>;
    /// The Arrow type.
    const TYPE: DataType;
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
            const TYPE: DataType = $dt;
            const NULLABLE: bool = false;
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

/// A nullable `i32` column (a value the SDK version may not provide).
#[derive(Debug, Default)]
pub struct OptI32(Vec<Option<i32>>);

impl Column for OptI32 {
    type Value<'a> = Option<i32>;
    const TYPE: DataType = DataType::Int32;
    const NULLABLE: bool = true;
    fn push(&mut self, value: Option<i32>) {
        self.0.push(value);
    }
    fn finish(&mut self) -> ArrayRef {
        Arc::new(Int32Array::from(std::mem::take(&mut self.0)))
    }
}

/// A UTF-8 column.
#[derive(Debug, Default)]
pub struct Str(StringBuilder);

impl Column for Str {
    type Value<'a> = &'a str;
    const TYPE: DataType = DataType::Utf8;
    const NULLABLE: bool = false;
    fn push(&mut self, value: &str) {
        self.0.append_value(value);
    }
    fn finish(&mut self) -> ArrayRef {
        let array: StringArray = self.0.finish();
        Arc::new(array)
    }
}

/// A nullable UTF-8 column.
#[derive(Debug, Default)]
pub struct OptStr(StringBuilder);

impl Column for OptStr {
    type Value<'a> = Option<&'a str>;
    const TYPE: DataType = DataType::Utf8;
    const NULLABLE: bool = true;
    fn push(&mut self, value: Option<&str>) {
        self.0.append_option(value);
    }
    fn finish(&mut self) -> ArrayRef {
        let array: StringArray = self.0.finish();
        Arc::new(array)
    }
}

/// Declares a table's columns: `columns! { Name { field: ColumnType, ... } }` gives a struct of
/// column buffers with `schema()`, `push_row`-style field access, `len()` and `finish()`.
macro_rules! columns {
    ($(#[$doc:meta])* $name:ident { $($field:ident: $kind:ident,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub struct $name {
            $(pub $field: $crate::tables::columns::$kind,)*
            rows: usize,
        }

        impl $name {
            /// The Arrow schema of the table.
            pub fn schema() -> arrow_schema::Schema {
                use $crate::tables::columns::Column as _;
                arrow_schema::Schema::new(vec![
                    $(arrow_schema::Field::new(
                        stringify!($field),
                        $crate::tables::columns::$kind::TYPE,
                        $crate::tables::columns::$kind::NULLABLE,
                    ),)*
                ])
            }

            /// Marks one row as complete; every column must have had one value pushed.
            pub fn end_row(&mut self) {
                self.rows += 1;
            }

            /// Rows buffered.
            pub fn len(&self) -> usize {
                self.rows
            }

            /// Whether no rows are buffered.
            pub fn is_empty(&self) -> bool {
                self.rows == 0
            }

            /// The buffered rows as arrays in schema order; the buffers are left empty.
            pub fn finish(&mut self) -> Vec<arrow_array::ArrayRef> {
                use $crate::tables::columns::Column as _;
                self.rows = 0;
                vec![$(self.$field.finish(),)*]
            }
        }
    };
}
pub(crate) use columns;

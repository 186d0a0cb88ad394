//! rocpd, rocprofv3's SQLite database (its default output from ROCm 7.0 on): its schema and
//! what both directions share. [`crate::export::rocpd`] writes it, [`crate::import::rocpd`]
//! reads it.
//!
//! The schema is AMD's own SQL (`sql/`, unchanged), run as rocprofv3 runs it, so AMD's `rocpd`
//! tools and their views (`kernels`, `regions`, `counters_collection`, `top_kernels`, ...) work
//! on what we write. One database per process, as rocprofv3 writes them.
//!
//! What our tables know and rocpd has no column for travels in each row's `extdata` JSON under
//! the key `rocprof_rs`; AMD's readers ignore it, and our reader restores it, so a dataset
//! survives export and import whole. Rows we had to invent to satisfy the schema's foreign keys
//! (a kernel symbol for a dispatch whose symbol was never reported, a dispatch for counters
//! collected without kernel tracing) say so there too and are dropped on the way back.

pub mod agent;
pub mod schema_check;

use std::hash::BuildHasher;

/// The schema files in the order rocprofv3 runs them (generateRocpd.cpp); the indexes file is
/// all comments in ROCm 7.0 and runs last, as there.
const SCHEMA: [(&str, &str); 6] = [
    ("rocpd_tables.sql", include_str!("sql/rocpd_tables.sql")),
    ("rocpd_views.sql", include_str!("sql/rocpd_views.sql")),
    ("data_views.sql", include_str!("sql/data_views.sql")),
    ("marker_views.sql", include_str!("sql/marker_views.sql")),
    ("summary_views.sql", include_str!("sql/summary_views.sql")),
    ("rocpd_indexes.sql", include_str!("sql/rocpd_indexes.sql")),
];

/// The key our own facts live under in `extdata`.
pub const EXTRA: &str = "rocprof_rs";

/// A database's identity: rocprofv3's guid (a UUIDv7 string, in every row's `guid` column) and
/// the table-name suffix made from it (`_` then the guid with `-` as `_`), which AMD's importer
/// finds through the `uuid` metadata tag.
#[derive(Debug, Clone)]
pub struct Identity {
    pub guid: String,
    pub suffix: String,
}

impl Identity {
    /// A fresh UUIDv7 for a process that started `start_ns` nanoseconds into the clock's epoch;
    /// `salt` (the pid) keeps two databases written in the same millisecond apart.
    pub fn new(start_ns: u64, salt: u64) -> Identity {
        let ms = start_ns / 1_000_000;
        let mut random = [0u8; 10];
        for (i, chunk) in random.chunks_mut(8).enumerate() {
            let state = std::collections::hash_map::RandomState::new();
            let random = state.hash_one((salt, i, std::time::SystemTime::now()));
            chunk.copy_from_slice(&random.to_be_bytes()[..chunk.len()]);
        }
        let mut b = [0u8; 16];
        b[..6].copy_from_slice(&ms.to_be_bytes()[2..]);
        b[6..].copy_from_slice(&random);
        b[6] = 0x70 | (b[6] & 0x0f);
        b[8] = 0x80 | (b[8] & 0x3f);
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        let guid = format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]);
        Identity { suffix: format!("_{}", guid.replace('-', "_")), guid }
    }

    /// The schema with this identity's names filled in.
    pub(crate) fn schema(&self) -> impl Iterator<Item = (&'static str, String)> + '_ {
        SCHEMA.iter().map(|(file, sql)| (*file, sql.replace("{{uuid}}", &self.suffix).replace("{{guid}}", &self.guid)))
    }
}

/// SQLite's 64-bit signed integers hold our unsigned ids bit for bit.
pub(crate) fn int(value: u64) -> i64 {
    value as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_is_a_uuid_v7_and_its_suffix_names_tables() {
        let id = Identity::new(1_700_000_000_123_456_789, 42);
        let parts: Vec<&str> = id.guid.split('-').collect();
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [8, 4, 4, 4, 12]);
        assert!(parts[2].starts_with('7'), "version 7: {}", id.guid);
        assert!(matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'), "variant: {}", id.guid);
        assert_eq!(&id.guid[..13], "018bcfe5-687b", "48-bit milliseconds first");
        assert_eq!(id.suffix, format!("_{}", id.guid.replace('-', "_")));
        assert_ne!(Identity::new(1, 1).guid, Identity::new(1, 2).guid);
    }
}

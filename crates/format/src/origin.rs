//! Which process of a distributed job wrote a row: the columns every table ends with.
//!
//! A job over many ranks writes one run directory, which engines read as one table per kind;
//! without these columns a row's rank would live only in its process's metadata file. They
//! hold one value per file, so they are not part of any row: a table's writer lays them out
//! once per batch, as runs of one value that cost nothing per row.

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Int32Array, StringArray};
use arrow_schema::{DataType, Field};

/// The process a file's rows came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// The host name; `None` where unknown (an import of another tool's output).
    pub host: Option<String>,
    /// The rank in the job (MPI, SLURM, torchrun), where a launcher set one.
    pub rank: Option<i32>,
    /// The rank among the job's processes on this host.
    pub local_rank: Option<i32>,
    /// The job's number of ranks.
    pub world_size: Option<i32>,
}

/// The variables each value comes from, first found wins: Open MPI, MPICH/Intel MPI (PMI),
/// PMIx, SLURM, torchrun.
pub const RANK_VARIABLES: [&str; 5] = ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK"];
/// See [`RANK_VARIABLES`].
pub const LOCAL_RANK_VARIABLES: [&str; 4] =
    ["OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK"];
/// See [`RANK_VARIABLES`].
pub const WORLD_SIZE_VARIABLES: [&str; 4] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "WORLD_SIZE"];

impl Origin {
    /// The columns' names, in the order every table ends with them.
    pub const COLUMNS: [&'static str; 4] = ["host", "rank", "local_rank", "world_size"];

    /// This process's origin from `host` and the launcher variables that `var` looks up. A
    /// value that is not a non-negative integer counts as absent: a launcher's garbage must not
    /// stop the tracing.
    pub fn from_variables(host: &str, var: impl Fn(&str) -> Option<String>) -> Origin {
        let first = |names: &[&str]| {
            names
                .iter()
                .find_map(|name| var(name))
                .and_then(|value| value.trim().parse::<i32>().ok())
                .filter(|value| *value >= 0)
        };
        Origin {
            host: Some(host.to_owned()),
            rank: first(&RANK_VARIABLES),
            local_rank: first(&LOCAL_RANK_VARIABLES),
            world_size: first(&WORLD_SIZE_VARIABLES),
        }
    }

    /// The columns' Arrow fields: all nullable, since files of other origins (imports) lack
    /// values.
    pub fn fields() -> [Field; 4] {
        let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        [
            Field::new("host", dictionary, true),
            Field::new("rank", DataType::Int32, true),
            Field::new("local_rank", DataType::Int32, true),
            Field::new("world_size", DataType::Int32, true),
        ]
    }

    /// The columns for `rows` rows, each one value repeated.
    pub fn arrays(&self, rows: usize) -> [ArrayRef; 4] {
        let host: ArrayRef = match &self.host {
            Some(host) => {
                let keys = Int32Array::from(vec![0; rows]);
                let values = Arc::new(StringArray::from(vec![host.as_str()]));
                Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).expect("key 0 of one value"))
            }
            None => {
                let keys = Int32Array::new_null(rows);
                let values = Arc::new(StringArray::from(Vec::<&str>::new()));
                Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).expect("null keys"))
            }
        };
        let number = |value: Option<i32>| -> ArrayRef {
            match value {
                Some(v) => Arc::new(Int32Array::from(vec![v; rows])),
                None => Arc::new(Int32Array::new_null(rows)),
            }
        };
        [host, number(self.rank), number(self.local_rank), number(self.world_size)]
    }

    /// The hive-style folders of this origin (`host=…/rank=…`), each value made safe as one
    /// path component; Spark's name for a null partition value where there is none.
    pub fn partition(&self) -> [String; 2] {
        const NULL: &str = "__HIVE_DEFAULT_PARTITION__";
        let host = self.host.as_deref().map_or_else(|| NULL.to_owned(), escape);
        let rank = self.rank.map_or_else(|| NULL.to_owned(), |r| r.to_string());
        [format!("host={host}"), format!("rank={rank}")]
    }
}

/// A partition value as one path component, escaped as Hive escapes them (`%XX` for the
/// characters that would break a path or a `key=value` pair), so engines read back the value.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    if out.is_empty() || out == "." || out == ".." {
        out = out.replace('.', "%2E");
        if out.is_empty() {
            out.push_str("__HIVE_DEFAULT_PARTITION__");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array as _;

    #[test]
    fn the_first_launcher_variable_wins_and_garbage_is_absent() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())
        };
        let o = Origin::from_variables("node1", vars(&[("RANK", "3"), ("SLURM_PROCID", "5"), ("WORLD_SIZE", "8")]));
        assert_eq!((o.rank, o.local_rank, o.world_size), (Some(5), None, Some(8)));
        let o =
            Origin::from_variables("n", vars(&[("RANK", "x1"), ("LOCAL_RANK", "-2"), ("WORLD_SIZE", "99999999999")]));
        assert_eq!((o.rank, o.local_rank, o.world_size), (None, None, None));
        assert_eq!(o.host.as_deref(), Some("n"));
    }

    #[test]
    fn arrays_repeat_one_value_or_are_null() {
        let o = Origin { host: Some("h".into()), rank: Some(2), local_rank: None, world_size: Some(4) };
        let [host, rank, local, world] = o.arrays(3);
        assert_eq!((host.len(), host.null_count()), (3, 0));
        assert_eq!(rank.as_any().downcast_ref::<Int32Array>().unwrap().values().to_vec(), [2, 2, 2]);
        assert_eq!(local.null_count(), 3);
        assert_eq!(world.null_count(), 0);
        let [host, ..] = Origin::default().arrays(2);
        assert_eq!(host.null_count(), 2);
    }

    #[test]
    fn partitions_are_one_path_component_each() {
        let o = Origin { host: Some("a/b=c d".into()), rank: None, ..Origin::default() };
        assert_eq!(o.partition(), ["host=a%2Fb%3Dc%20d".to_owned(), "rank=__HIVE_DEFAULT_PARTITION__".to_owned()]);
        let o = Origin { host: Some("..".into()), rank: Some(7), ..Origin::default() };
        assert_eq!(o.partition(), ["host=%2E%2E".to_owned(), "rank=7".to_owned()]);
    }
}

//! The options `stats` and `ranks` share, and what they do alike with them: a dataset listed
//! section by section, the first N rows of each, as a table, CSV (to standard output or a file
//! per section) or JSON, names cut to a width, in the external sorts' memory.
//!
//! Each command words these options for itself and lists them among its own in its own order
//! ([`Wording`]): the options are one, their help is each command's.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rocprof_rs_format::publish::OutputFile;

/// How a command that prints rows prints them (stats, ranks, diff, analyze).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Csv,
    Json,
}

/// Where a command lists each shared option among its own in its help.
#[derive(Debug, Clone, Copy)]
pub struct Order {
    pub section: usize,
    pub top: usize,
    pub format: usize,
    pub csv_dir: usize,
    pub width: usize,
    pub memory: usize,
}

/// What a command says of the shared options: each one's help, the width it cuts names to by
/// default, and the sections it has (for the error naming an unknown one).
pub trait Wording {
    const DIR: &'static str;
    const SECTION: &'static str;
    const TOP: &'static str;
    const FORMAT: &'static str;
    const CSV_DIR: &'static str;
    const WIDTH: &'static str;
    const WIDTH_DEFAULT: &'static str;
    const MEMORY: &'static str;
    const ORDER: Order;
    /// The `--section` names, as the error for an unknown one lists them.
    const SECTIONS: &'static str;
}

/// The options `stats` and `ranks` share, in `W`'s words.
#[derive(Debug, Args)]
pub struct ListingArgs<W: Wording> {
    #[arg(help = W::DIR)]
    pub dir: PathBuf,
    #[arg(long, value_delimiter = ',', help = W::SECTION, display_order = W::ORDER.section)]
    pub section: Vec<String>,
    #[arg(long, value_name = "N", help = W::TOP, display_order = W::ORDER.top)]
    pub top: Option<usize>,
    #[arg(long, value_enum, default_value = "table", help = W::FORMAT, display_order = W::ORDER.format)]
    pub format: Format,
    #[arg(long, value_name = "DIR", help = W::CSV_DIR, display_order = W::ORDER.csv_dir)]
    pub csv_dir: Option<PathBuf>,
    #[arg(long, default_value = W::WIDTH_DEFAULT, help = W::WIDTH, display_order = W::ORDER.width)]
    pub width: usize,
    #[arg(
        long,
        value_name = "SIZE",
        default_value = "256M",
        value_parser = rocprof_rs_analysis::spill::parse_size,
        help = W::MEMORY,
        display_order = W::ORDER.memory
    )]
    pub memory: usize,
    #[arg(skip)]
    wording: PhantomData<W>,
}

/// A `--section` name the command has no section of.
#[derive(Debug, thiserror::Error)]
#[error("--section {name:?}: expected {expected}")]
pub struct UnknownSection {
    name: String,
    expected: &'static str,
}

impl<W: Wording> ListingArgs<W> {
    /// Gives the external sorts `--memory`: before anything is read.
    pub fn set_memory(&self) {
        rocprof_rs_analysis::spill::set_memory(self.memory);
    }

    /// The sections `--section` names, in its order, but for those `aside` (which the command
    /// handles apart); empty where it names none.
    pub fn sections<S>(&self, aside: &[&str], by_name: impl Fn(&str) -> Option<S>) -> Result<Vec<S>, UnknownSection> {
        self.section
            .iter()
            .filter(|name| !aside.contains(&name.as_str()))
            .map(|name| by_name(name).ok_or_else(|| UnknownSection { name: name.clone(), expected: W::SECTIONS }))
            .collect()
    }

    /// `--top` as the analysis takes it: where not given, `table_default` in a table, else all.
    pub fn top(&self, table_default: Option<usize>) -> Option<usize> {
        self.top.or(table_default.filter(|_| self.format == Format::Table))
    }
}

/// What printing a listing can run into: `E`, where it went to standard output or to a file.
#[derive(Debug, thiserror::Error)]
pub enum PrintError<E: std::error::Error + 'static> {
    #[error("standard output: {0}")]
    Stdout(E),
    #[error("{}: {source}", path.display())]
    File { path: PathBuf, source: E },
}

impl<E: std::error::Error + 'static> PrintError<E> {
    /// The error `source` met at `path`.
    pub fn at(path: &Path) -> impl FnOnce(E) -> PrintError<E> + '_ {
        move |source| PrintError::File { path: path.to_owned(), source }
    }
}

/// Writes `path` with `write`, whole or not at all: a failure leaves no file behind, and
/// whatever was at `path` stays until the new file is complete.
pub fn publish<E>(path: &Path, write: impl FnOnce(&mut OutputFile) -> Result<(), E>) -> Result<(), PrintError<E>>
where
    E: std::error::Error + From<std::io::Error> + 'static,
{
    let failed = |e: E| PrintError::File { path: path.to_owned(), source: e };
    let mut file = OutputFile::create(path).map_err(|e| failed(e.into()))?;
    write(&mut file).map_err(failed)?;
    file.complete().map_err(|e| failed(e.into()))?;
    file.commit().map_err(|e| failed(e.into()))
}

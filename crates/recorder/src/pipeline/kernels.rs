//! What the writer knows of each kernel: its display name, its symbol and whether the filters
//! keep it. Shared by the dispatch rows and the counter rows, below both.

use std::sync::Arc;

use super::records::Symbol;

/// What the writer knows of a kernel.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub name: Arc<str>,
    pub symbol: Symbol,
    /// Whether the name passes the include and exclude filters.
    pub selected: bool,
    /// Whether the symbol came from the backend rather than a stand-in for an unknown id.
    pub(super) announced: bool,
}

//! Any `ROCPROF_RS_*` values: the input is `NAME=value` lines (a name without the prefix gets
//! it), read as the tool reads the environment inside the application. A bad value is refused
//! naming the variable, never a panic.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use rocprof_rs::config::{Config, Placeholders};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut vars = BTreeMap::new();
    for line in text.lines() {
        let (name, value) = line.split_once('=').unwrap_or((line, ""));
        let name = if name.starts_with("ROCPROF_RS_") { name.to_owned() } else { format!("ROCPROF_RS_{name}") };
        vars.insert(name, value.to_owned());
    }
    // A counter file named by the input is not read: the reader has its own target.
    vars.remove("ROCPROF_RS_PMC_FILE");
    let placeholders = Placeholders {
        pid: 42,
        ppid: 1,
        hostname: "node-1".into(),
        rank: "0".into(),
        timestamp: "20261125-000000".into(),
    };
    let _ = Config::from_vars(&vars, &placeholders);
});

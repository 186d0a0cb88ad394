//! The command line's modules the `mcp_messages` target compiles in, as `crate::cli`.

#[allow(dead_code)]
#[path = "../../src/cli/bodies.rs"]
pub mod bodies;
#[allow(dead_code)]
#[path = "../../src/cli/envelope.rs"]
pub mod envelope;
#[allow(dead_code)]
#[path = "../../src/cli/launch.rs"]
pub mod launch;
#[allow(dead_code)]
#[path = "../../src/cli/mcp/mod.rs"]
pub mod mcp;

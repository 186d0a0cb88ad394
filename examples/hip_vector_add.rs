//! A Rust HIP application with no link-time ROCm dependency: it loads HIP at run time, compiles
//! a kernel with hiprtc, launches it and times it with HIP events.
//!
//! ```sh
//! cargo run --example hip_vector_add
//! ```
//!
//! Without an AMD GPU it says what is missing and exits 0, so it runs anywhere.

// The demo's HIP program, which the `rocprof-rs demo` command runs too.
#[path = "../src/workload.rs"]
mod workload;

fn main() {
    let hip = match workload::gpu() {
        Ok(hip) => hip,
        Err(e) => {
            println!("{e}");
            return;
        }
    };
    let rtc = hip.rtc().expect("gpu() checked hiprtc");
    match workload::run(hip.api(), rtc, 1) {
        Ok(ms) => println!("vector_add over 2^24 floats: {ms:.3} ms, results checked"),
        Err(e) => println!("vector_add failed: {e}"),
    }
}

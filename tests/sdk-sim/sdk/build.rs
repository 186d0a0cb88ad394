//! Gives the simulator the real SDK's SONAME, so `dlopen("librocprofiler-sdk.so.1", RTLD_NOLOAD)`
//! in a tool finds it once the driver has loaded it.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librocprofiler-sdk.so.1");
}

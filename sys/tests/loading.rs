//! Run-time resolution fails as a typed error, never a panic, whatever the machine has.

use rocprofiler_sdk_sys::LoadError;
use rocprofiler_sdk_sys::sdk::{SONAME, Sdk, SdkApi};

#[test]
fn a_missing_sdk_is_a_library_error_naming_what_was_tried() {
    let missing = std::path::Path::new("/nonexistent/librocprofiler-sdk.so.1");
    match Sdk::load_from(missing) {
        Err(LoadError::LibraryNotFound { tried, reason, .. }) => {
            assert_eq!(tried, vec![missing.display().to_string()]);
            assert!(!reason.is_empty());
        }
        other => panic!("expected LibraryNotFound, got {other:?}"),
    }
}

#[test]
fn a_library_without_the_sdk_symbols_is_a_symbol_error() {
    // libc is always there and exports none of the SDK's functions.
    match Sdk::load_from(std::path::Path::new("libc.so.6")) {
        Err(LoadError::MissingSymbol { library, symbol }) => {
            assert_eq!(library, "libc.so.6");
            assert_eq!(symbol, SdkApi::SYMBOLS[0]);
        }
        other => panic!("expected MissingSymbol, got {other:?}"),
    }
}

#[test]
fn loading_by_soname_either_works_or_says_why() {
    match Sdk::load() {
        Ok(sdk) => {
            let (major, _, _) = sdk.version().expect("a loaded SDK reports its version");
            assert_eq!(major, 1);
        }
        Err(LoadError::LibraryNotFound { tried, .. }) => assert_eq!(tried, vec![SONAME.to_owned()]),
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[test]
fn the_hip_runtime_either_loads_and_reports_a_version_or_says_why() {
    match rocprofiler_sdk_sys::hip::Hip::load() {
        Ok(hip) => {
            let version = hip.runtime_version().expect("hipRuntimeGetVersion needs no device");
            assert!(version > 0, "HIP_VERSION {version}");
            assert!(hip.path().is_some());
        }
        Err(LoadError::LibraryNotFound { tried, .. }) => assert!(tried.iter().all(|n| n.starts_with("libamdhip64"))),
        Err(other) => panic!("unexpected error: {other}"),
    }
}

//! Run-time resolution of C libraries: the reason this crate links nothing.
//!
//! Linking librocprofiler-sdk would race rocprofiler-register's search for
//! `rocprofiler_configure`, and linking any ROCm library would stop the tool and the CLI from
//! loading on machines without ROCm. So every function is looked up with `dlsym` in a library that
//! is either already in the process or opened by SONAME, and anything missing is a [`LoadError`].

use std::ffi::{CStr, c_void};
use std::fmt;
use std::path::PathBuf;

use libloading::os::unix::{Library, RTLD_LAZY, RTLD_LOCAL};

/// Why a library or one of its functions could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// None of the candidate names could be opened.
    #[error("{what} not found (tried {tried}): {reason}", tried = .tried.join(", "))]
    LibraryNotFound {
        /// What was looked for, in words.
        what: &'static str,
        /// The names tried, in order.
        tried: Vec<String>,
        /// The dynamic loader's last message.
        reason: String,
    },
    /// The library is there but lacks a function the project needs.
    #[error("{library} has no symbol `{symbol}`")]
    MissingSymbol {
        /// The library, as opened.
        library: String,
        /// The function that is missing.
        symbol: &'static str,
    },
}

/// How a library came to be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// It was already in the process (`RTLD_NOLOAD`): the SDK that loaded our tool, say.
    AlreadyLoaded,
    /// This crate opened it, by SONAME or by path.
    Opened,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::AlreadyLoaded => "already loaded in the process",
            Origin::Opened => "opened by this process",
        })
    }
}

/// An open library and where it came from.
#[derive(Debug)]
pub struct OpenLibrary {
    /// The handle; closing it is left to process exit, since function tables point into it.
    pub library: Library,
    /// The name it was opened by.
    pub name: String,
    /// Whether it was already loaded.
    pub origin: Origin,
}

/// Opens the first of `names` that is already loaded; failing that, the first that can be opened.
///
/// Names are SONAMEs or paths. Opening runs the library's initialisers, which is why callers only
/// name libraries whose initialisers are known to be harmless (the ROCm runtimes and the SDK).
pub fn open_first(what: &'static str, names: &[&str]) -> Result<OpenLibrary, LoadError> {
    for name in names {
        // SAFETY: RTLD_NOLOAD never loads anything new, so no initialiser runs.
        if let Ok(library) = unsafe { Library::open(Some(*name), RTLD_LAZY | libc::RTLD_NOLOAD) } {
            return Ok(OpenLibrary { library, name: (*name).to_owned(), origin: Origin::AlreadyLoaded });
        }
    }
    let mut reason = String::from("no candidates");
    for name in names {
        // SAFETY: the candidates are ROCm/CUDA runtime libraries, whose initialisers only set up
        // their own state; callers document the names they pass.
        match unsafe { Library::open(Some(*name), RTLD_LAZY | RTLD_LOCAL) } {
            Ok(library) => return Ok(OpenLibrary { library, name: (*name).to_owned(), origin: Origin::Opened }),
            Err(e) => reason = with_sources(&e),
        }
    }
    Err(LoadError::LibraryNotFound { what, tried: names.iter().map(|n| (*n).to_owned()).collect(), reason })
}

/// An error and its sources on one line: libloading keeps dlerror's text in the source.
fn with_sources(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// The file the code at `address` belongs to, as the dynamic loader reports it.
pub fn file_of(address: usize) -> Option<PathBuf> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr only reads `address` as a number and fills `info`.
    let found = unsafe { libc::dladdr(address as *const c_void, info.as_mut_ptr()) };
    if found == 0 {
        return None;
    }
    // SAFETY: dladdr returned non-zero, so it filled `info`.
    let info = unsafe { info.assume_init() };
    if info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader, alive while the library is.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    std::fs::canonicalize(name.to_string_lossy().as_ref()).ok()
}

/// Declares a table of C functions resolved from one library, every one required.
///
/// Besides the table, it emits (behind `$check_cfg`) a generic function that is type-checked but
/// never instantiated: it assigns each generated declaration to the table's pointer type, so a
/// signature that differs from the headers fails to compile without any symbol being referenced.
macro_rules! dynamic_api {
    (
        $(#[$meta:meta])*
        pub struct $table:ident;
        check = $check_cfg:meta, $generated:ident;
        $(
            $(#[$doc:meta])*
            fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;
        )*
    ) => {
        $(#[$meta])*
        #[allow(missing_debug_implementations)]
        pub struct $table {
            $(
                $(#[$doc])*
                pub $name: unsafe extern "C" fn($($arg: $ty),*) $(-> $ret)?,
            )*
        }

        impl $table {
            /// Resolves every function in `library`.
            ///
            /// # Safety
            /// `library` must be the library these declarations describe, so that each symbol
            /// has the declared signature, and it must stay loaded while the table is used.
            pub unsafe fn resolve(
                library: &libloading::os::unix::Library,
                library_name: &str,
            ) -> Result<Self, $crate::dylib::LoadError> {
                Ok(Self {
                    $(
                        // SAFETY: the caller vouches that the symbol has this signature.
                        $name: *unsafe { library.get::<unsafe extern "C" fn($($ty),*) $(-> $ret)?>(
                            concat!(stringify!($name), "\0").as_bytes(),
                        ) }
                        .map_err(|_| $crate::dylib::LoadError::MissingSymbol {
                            library: library_name.to_owned(),
                            symbol: stringify!($name),
                        })?,
                    )*
                })
            }

            /// Every symbol name in the table, in declaration order.
            pub const SYMBOLS: &'static [&'static str] = &[$(stringify!($name)),*];
        }

        impl $table {
            #[cfg($check_cfg)]
            #[allow(dead_code, unused_variables, clippy::extra_unused_type_parameters)]
            fn __signatures_match_the_headers<T>() {
                $(
                    let $name: unsafe extern "C" fn($($ty),*) $(-> $ret)? = $generated::$name;
                )*
            }
        }
    };
}
pub(crate) use dynamic_api;

//! The recorder's error type, and the SDK's status codes.

use std::fmt;
use std::sync::OnceLock;

use rocprofiler_sdk_sys as sys;

/// Everything that can go wrong in the recorder: the SDK, its settings, counters and files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An SDK call returned something other than success.
    #[error("{call}: {status}")]
    Sdk {
        /// The SDK function that failed.
        call: &'static str,
        /// What it returned.
        status: Status,
    },
    /// The SDK or a runtime library could not be loaded or lacks a function.
    #[error(transparent)]
    Load(#[from] sys::LoadError),
    /// The loaded SDK is older than the 1.x ABI this build speaks.
    #[error("rocprofiler-sdk {found} is too old: rocprof-rs needs SDK 1.0 or later (ROCm 7.0+)")]
    SdkTooOld {
        /// The version found, as `major.minor.patch`.
        found: String,
    },
    /// A configuration variable has a value the tool does not accept.
    #[error("{variable}={value:?} is not valid: expected {accepts}")]
    Config {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
        /// What it accepts.
        accepts: String,
    },
    /// A `ROCPROF_RS_*` variable whose name or value is not UTF-8: refused like any other bad
    /// value, rather than skipped (which traced with defaults the user never chose).
    #[error(
        "{variable}={value:?} is not valid: it is not UTF-8 (U+FFFD shows the bytes that are not); rocprof-rs settings, paths included, must be UTF-8"
    )]
    NotUtf8 {
        /// The variable, with any byte that is not UTF-8 replaced.
        variable: String,
        /// Its value, likewise.
        value: String,
    },
    /// A `ROCPROF_RS_*` variable the tool does not know (most likely a typo).
    #[error("{variable} is not a rocprof-rs variable; the known ones are {known}")]
    UnknownVariable {
        /// The variable.
        variable: String,
        /// The variables that exist.
        known: String,
    },
    /// The tool is not running in this process (not configured by the SDK, or disabled).
    #[error("the rocprof-rs tool is not running in this process")]
    NotRunning,
    /// Regions and pauses were asked of a run whose tracing windows decide when it collects.
    #[error(
        "this run records in tracing windows (ROCPROF_RS_WINDOW), which decide when it collects: regions and pauses cannot"
    )]
    Windowed,
    /// The SDK was initialized before the in-process profiler started (something called HIP
    /// first), so it no longer accepts a tool.
    #[error(
        "rocprofiler-sdk is already initialized (it returned {0}): start the profiler before the first HIP or HSA call"
    )]
    TooLate(Status),
    /// The tool is already configured in this process, by the SDK or an earlier `start`.
    #[error("the rocprof-rs tool is already configured in this process")]
    AlreadyConfigured,
    /// The tool turned itself off.
    #[error("rocprof-rs is off: {0}")]
    Disabled(String),
    /// A counter input file has a line the tool cannot read.
    #[error("{path}:{line}: {message}")]
    CounterFile {
        /// The file.
        path: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// Requested counters that cannot be collected as asked: unknown names (with
    /// suggestions), or a set the hardware cannot hold. The text names each problem.
    #[error("{0}")]
    Counters(String),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// What was being accessed.
        path: String,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// Something of ours went wrong (a panic caught at a C entry): a bug to report.
    #[error("internal error: {0}")]
    Internal(&'static str),
    /// A table's file could not be written.
    #[error(transparent)]
    Format(#[from] rocprof_rs_format::Error),
}

/// A convenient alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Turns an SDK status into a `Result`, naming the call that returned it.
pub fn check(call: &'static str, status: sys::rocprofiler_status_t) -> Result<()> {
    match Status::from_raw(status) {
        None => Ok(()),
        Some(status) => Err(Error::Sdk { call, status }),
    }
}

macro_rules! statuses {
    ($($variant:ident = $code:ident, $text:literal;)*) => {
        /// A failure status of rocprofiler-sdk 1.x. Codes this build does not know (a newer SDK
        /// appends some) are kept as [`Status::Unknown`] rather than guessed at.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Status {
            $(
                #[doc = $text]
                $variant,
            )*
            /// A code this build has no name for.
            Unknown(u32),
        }

        impl Status {
            /// The status for a raw code; `None` for success.
            pub fn from_raw(raw: sys::rocprofiler_status_t) -> Option<Self> {
                if raw == sys::ROCPROFILER_STATUS_SUCCESS {
                    return None;
                }
                Some(match raw {
                    $(sys::$code => Status::$variant,)*
                    other => Status::Unknown(other),
                })
            }

            /// The raw code.
            pub fn raw(self) -> sys::rocprofiler_status_t {
                match self {
                    $(Status::$variant => sys::$code,)*
                    Status::Unknown(raw) => raw,
                }
            }

            /// The SDK's constant name, e.g. `ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED`.
            pub fn name(self) -> Option<&'static str> {
                match self {
                    $(Status::$variant => Some(stringify!($code)),)*
                    Status::Unknown(_) => None,
                }
            }

            fn builtin_text(self) -> &'static str {
                match self {
                    $(Status::$variant => $text,)*
                    Status::Unknown(_) => "unknown status",
                }
            }
        }
    };
}

statuses! {
    Error = ROCPROFILER_STATUS_ERROR, "Generic error.";
    ContextNotFound = ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND, "No such context.";
    BufferNotFound = ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND, "No such buffer.";
    KindNotFound = ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND, "No such tracing kind.";
    OperationNotFound = ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND, "No such operation in this kind.";
    ThreadNotFound = ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND, "No such thread.";
    AgentNotFound = ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND, "No such agent.";
    CounterNotFound = ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND, "No such counter.";
    ContextError = ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR, "The context failed.";
    ContextInvalid = ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID, "The context is invalid.";
    ContextNotStarted = ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED, "The context was not started.";
    ContextConflict = ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT, "The context conflicts with an active one.";
    ContextIdNotZero = ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO, "A new context id must be zero on entry.";
    BufferBusy = ROCPROFILER_STATUS_ERROR_BUFFER_BUSY, "The buffer is being flushed.";
    ServiceAlreadyConfigured = ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED, "This kind is already configured on the context.";
    ConfigurationLocked = ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED, "Services can only be set up during tool initialization.";
    NotImplemented = ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED, "Not implemented by this SDK.";
    IncompatibleAbi = ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI, "The struct size passed is not compatible with this SDK.";
    InvalidArgument = ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "An argument is invalid.";
    MetricNotValidForAgent = ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT, "The metric is not valid for this agent.";
    Finalized = ROCPROFILER_STATUS_ERROR_FINALIZED, "The SDK has been finalized.";
    HsaNotLoaded = ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED, "The HSA runtime is not loaded.";
    DimNotFound = ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND, "No such counter dimension.";
    ProfileCounterNotFound = ROCPROFILER_STATUS_ERROR_PROFILE_COUNTER_NOT_FOUND, "A counter of the profile was not found.";
    AstGenerationFailed = ROCPROFILER_STATUS_ERROR_AST_GENERATION_FAILED, "A derived counter's expression could not be parsed.";
    AstNotFound = ROCPROFILER_STATUS_ERROR_AST_NOT_FOUND, "No expression for this counter.";
    AqlNoEventCoord = ROCPROFILER_STATUS_ERROR_AQL_NO_EVENT_COORD, "The AQL profiler has no coordinates for this event.";
    IncompatibleKernel = ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_KERNEL, "The kernel driver does not support this.";
    OutOfResources = ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES, "Out of resources.";
    ProfileNotFound = ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND, "No such counter profile.";
    AgentDispatchConflict = ROCPROFILER_STATUS_ERROR_AGENT_DISPATCH_CONFLICT, "Agent and dispatch counting conflict.";
    InternalNoAgentContext = ROCPROFILER_STATUS_INTERNAL_NO_AGENT_CONTEXT, "No agent context (internal).";
    SampleRateExceeded = ROCPROFILER_STATUS_ERROR_SAMPLE_RATE_EXCEEDED, "The sampling rate is too high.";
    NoProfileQueue = ROCPROFILER_STATUS_ERROR_NO_PROFILE_QUEUE, "No profiling queue.";
    NoHardwareCounters = ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS, "This agent has no hardware counters.";
    AgentMismatch = ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH, "The objects belong to different agents.";
    NotAvailable = ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE, "Not available.";
    ExceedsHwLimit = ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT, "The counters do not fit in one hardware pass.";
    AgentArchNotSupported = ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED, "This agent's architecture is not supported.";
    PermissionDenied = ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED, "Permission denied.";
}

/// The loaded SDK's own text for a status. Set by the backend that loads the SDK
/// (`backend::amd::sdk`), so that this lower module never reaches up for the library.
static SDK_TEXT: OnceLock<fn(sys::rocprofiler_status_t) -> Option<&'static str>> = OnceLock::new();

/// Where [`Status`] finds the SDK's own text once an SDK is loaded; the first caller wins.
pub(crate) fn use_sdk_text(text: fn(sys::rocprofiler_status_t) -> Option<&'static str>) {
    let _ = SDK_TEXT.set(text);
}

impl fmt::Display for Status {
    /// The SDK's own message when the SDK is loaded and knows the code, else the built-in one;
    /// always followed by the code's name or number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sdk_text = SDK_TEXT.get().and_then(|text| text(self.raw()));
        let text = sdk_text.unwrap_or(self.builtin_text());
        match self.name() {
            Some(name) => write!(f, "{text} ({name})"),
            None => write!(f, "{text} (status {})", self.raw()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_is_not_an_error_and_every_failure_round_trips() {
        assert!(check("f", sys::ROCPROFILER_STATUS_SUCCESS).is_ok());
        for raw in 1..sys::ROCPROFILER_STATUS_LAST {
            let status = Status::from_raw(raw).expect("non-zero is a failure");
            assert_eq!(status.raw(), raw);
            assert!(status.name().is_some(), "code {raw} has a name");
            assert!(!matches!(status, Status::Unknown(_)), "code {raw} is known");
        }
    }

    #[test]
    fn unknown_codes_are_kept_not_guessed() {
        let raw = sys::ROCPROFILER_STATUS_LAST + 7;
        let status = Status::from_raw(raw).expect("a failure");
        assert_eq!(status, Status::Unknown(raw));
        assert_eq!(status.raw(), raw);
        assert_eq!(status.to_string(), format!("unknown status (status {raw})"));
    }

    #[test]
    fn errors_name_the_call_and_the_status() {
        let err = check("rocprofiler_create_context", sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("rocprofiler_create_context: "), "{text}");
        assert!(text.ends_with("(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED)"), "{text}");
    }
}

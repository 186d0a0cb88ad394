//! Why the CUPTI backend could not set up: each turns NVIDIA tracing off with one line, and
//! the application runs on.

use rocprofiler_sdk_sys::LoadError;

/// A CUPTI setup failure.
#[derive(Debug, thiserror::Error)]
pub enum CuptiError {
    /// libcupti could not be loaded (kept from the first try: both injection entries ask).
    #[error("{0}")]
    Load(&'static LoadError),
    /// Another client holds CUPTI's one subscriber slot.
    #[error(
        "{holder} holds CUPTI's profiling slot (Nsight Systems or Compute, cuda-gdb, compute-sanitizer, or a torch.profiler started before CUDA); NVIDIA tracing is off"
    )]
    SlotTaken {
        /// Who, as CUPTI names them (quoted), or "another CUPTI client".
        holder: String,
    },
    /// This libcupti does not go with the loaded CUDA driver.
    #[error("CUPTI {version} does not match the CUDA driver; NVIDIA tracing is off")]
    DriverMismatch {
        /// The libcupti's API version.
        version: u32,
    },
    /// The process may not profile the GPU.
    #[error("CUPTI refused: {text} (ERR_NVGPUCTRPERM: see https://developer.nvidia.com/ERR_NVGPUCTRPERM)")]
    Privileges {
        /// CUPTI's own text.
        text: String,
    },
    /// CUPTI would not take a subscriber, for another reason.
    #[error("CUPTI would not take a subscriber: {text}")]
    Subscribe {
        /// CUPTI's own text.
        text: String,
    },
    /// Something could not be set up, for a reason of its own (no range profiler in this
    /// libcupti, a chip CUPTI cannot profile, counters that do not fit).
    #[error("CUPTI refused to set up {what}: {text}")]
    Refused {
        /// What was being set up.
        what: &'static str,
        /// CUPTI's own text.
        text: String,
    },
    /// A setup call failed: [`Failed`](super::api::Failed) names it; the line reads as
    /// [`CuptiError::Refused`]'s.
    #[error("CUPTI refused to set up {what}: {}", failed.text)]
    Call {
        /// What was being set up.
        what: &'static str,
        /// The call, its result and CUPTI's text.
        #[source]
        failed: super::api::Failed,
    },
    /// CUPTI reported a size or count beyond any it gives, which must not size an allocation.
    #[error("CUPTI reported {value} for {what}, more than the {limit} it may; the library is not trusted")]
    Implausible {
        /// The size or count, as CUPTI names it.
        what: &'static str,
        /// What CUPTI reported.
        value: usize,
        /// The most believed.
        limit: usize,
    },
    /// The settings are not valid, or the pipeline could not start.
    #[error(transparent)]
    Tool(#[from] crate::Error),
    /// The output directory cannot be created.
    #[error("cannot create the output directory {path}: {source}")]
    OutputDir {
        /// The directory.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The tool was set up in this process already (by the other backend).
    #[error("the tool was already set up in this process")]
    AlreadySetUp,
}

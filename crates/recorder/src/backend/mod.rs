//! The libraries that feed the pipeline: AMD's rocprofiler-sdk ([`amd`]) and NVIDIA's CUPTI
//! ([`cupti`]). Each has its own entry points (the SDK's `rocprofiler_configure`, CUDA's
//! `InitializeInjection`), decodes its own records into [`crate::pipeline::records`], and
//! answers the lifecycle through [`Backend`], so nothing above it names a library.

pub mod amd;
pub mod cupti;

use crate::error::Result;

/// What the lifecycle asks of the library behind a run.
pub(crate) trait Backend: Send + Sync {
    /// Begins collecting, once the writer runs.
    fn start(&self) -> Result<()>;
    /// Starts or stops collecting, for an in-process region.
    fn set_collecting(&self, on: bool) -> Result<()>;
    /// Moves every record the library holds into the queue, the run going on.
    fn flush(&self);
    /// At the end of the run, before the writer stops: stops collecting and moves every record
    /// the library still holds into the queue.
    fn finish(&self);
}

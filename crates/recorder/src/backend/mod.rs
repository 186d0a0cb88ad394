//! The libraries that feed the pipeline: AMD's rocprofiler-sdk ([`amd`]) and NVIDIA's CUPTI
//! ([`cupti`]). Each has its own entry points (the SDK's `rocprofiler_configure`, CUDA's
//! `InitializeInjection`), decodes its own records into [`crate::pipeline::records`], and
//! answers the lifecycle through [`crate::lifecycle::Backend`]. The lifecycle never names a
//! library; the pipeline calls none, and knows each vendor only by the records it is handed.

pub mod amd;
pub mod cupti;

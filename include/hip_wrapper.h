/* What bindgen reads for the HIP subset of rocprofiler-sdk-sys: the runtime API and hiprtc, as a
 * Rust HIP application needs them to compile a kernel at run time, launch it and time it.
 * Parsed as C with __HIP_PLATFORM_AMD__; Debian's libamdhip64-dev (HIP 5.x) and ROCm's HIP 6/7
 * headers both work, since the subset avoids structs whose layout changed between majors. */
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

/* What bindgen reads for rocprofiler-sdk-sys: the SDK's public C API (ROCm 7.0+, SDK ABI 1.x).
 *
 * rocprofiler.h pulls in every service header (agents, buffers, callback and buffer tracing,
 * counters, dispatch counting, external correlation, internal threading); registration.h adds the
 * tool entry (rocprofiler_configure and its result struct). The HIP, HSA and hsakmt headers these
 * include must be on the include path too; a ROCm install has them under $ROCM_PATH/include. */
#include <rocprofiler-sdk/rocprofiler.h>
#include <rocprofiler-sdk/registration.h>

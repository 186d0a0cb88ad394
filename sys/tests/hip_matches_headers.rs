//! The checked HIP declarations against bindings generated from the HIP headers found at build
//! time (ROCm's, or Debian's libamdhip64-dev, which CI installs): every enumerator's value and
//! every typedef's width and signedness. Function signatures are compared at compile time by
//! `HipApi` and `HiprtcApi`.

#![cfg(rocprofiler_sdk_sys_hip_bindgen)]
#![allow(non_upper_case_globals)]

use rocprofiler_sdk_sys::hip::{checked, generated};

#[test]
fn enumerators_have_the_header_values() {
    assert_eq!(checked::hipSuccess as i64, generated::hipSuccess as i64, "hipSuccess");
    assert_eq!(checked::hipErrorInvalidValue as i64, generated::hipErrorInvalidValue as i64, "hipErrorInvalidValue");
    assert_eq!(checked::hipErrorOutOfMemory as i64, generated::hipErrorOutOfMemory as i64, "hipErrorOutOfMemory");
    assert_eq!(
        checked::hipErrorNotInitialized as i64,
        generated::hipErrorNotInitialized as i64,
        "hipErrorNotInitialized"
    );
    assert_eq!(
        checked::hipErrorInsufficientDriver as i64,
        generated::hipErrorInsufficientDriver as i64,
        "hipErrorInsufficientDriver"
    );
    assert_eq!(checked::hipErrorNoDevice as i64, generated::hipErrorNoDevice as i64, "hipErrorNoDevice");
    assert_eq!(checked::hipErrorInvalidDevice as i64, generated::hipErrorInvalidDevice as i64, "hipErrorInvalidDevice");
    assert_eq!(checked::hipErrorNotFound as i64, generated::hipErrorNotFound as i64, "hipErrorNotFound");
    assert_eq!(
        checked::hipDeviceAttributeClockRate as i64,
        generated::hipDeviceAttributeClockRate as i64,
        "hipDeviceAttributeClockRate"
    );
    assert_eq!(
        checked::hipDeviceAttributeL2CacheSize as i64,
        generated::hipDeviceAttributeL2CacheSize as i64,
        "hipDeviceAttributeL2CacheSize"
    );
    assert_eq!(
        checked::hipDeviceAttributeComputeCapabilityMajor as i64,
        generated::hipDeviceAttributeComputeCapabilityMajor as i64,
        "hipDeviceAttributeComputeCapabilityMajor"
    );
    assert_eq!(
        checked::hipDeviceAttributeMaxThreadsPerBlock as i64,
        generated::hipDeviceAttributeMaxThreadsPerBlock as i64,
        "hipDeviceAttributeMaxThreadsPerBlock"
    );
    assert_eq!(
        checked::hipDeviceAttributeMaxThreadsPerMultiProcessor as i64,
        generated::hipDeviceAttributeMaxThreadsPerMultiProcessor as i64,
        "hipDeviceAttributeMaxThreadsPerMultiProcessor"
    );
    assert_eq!(
        checked::hipDeviceAttributeMemoryBusWidth as i64,
        generated::hipDeviceAttributeMemoryBusWidth as i64,
        "hipDeviceAttributeMemoryBusWidth"
    );
    assert_eq!(
        checked::hipDeviceAttributeMemoryClockRate as i64,
        generated::hipDeviceAttributeMemoryClockRate as i64,
        "hipDeviceAttributeMemoryClockRate"
    );
    assert_eq!(
        checked::hipDeviceAttributeComputeCapabilityMinor as i64,
        generated::hipDeviceAttributeComputeCapabilityMinor as i64,
        "hipDeviceAttributeComputeCapabilityMinor"
    );
    assert_eq!(
        checked::hipDeviceAttributeMultiprocessorCount as i64,
        generated::hipDeviceAttributeMultiprocessorCount as i64,
        "hipDeviceAttributeMultiprocessorCount"
    );
    assert_eq!(
        checked::hipDeviceAttributePciBusId as i64,
        generated::hipDeviceAttributePciBusId as i64,
        "hipDeviceAttributePciBusId"
    );
    assert_eq!(
        checked::hipDeviceAttributePciDeviceId as i64,
        generated::hipDeviceAttributePciDeviceId as i64,
        "hipDeviceAttributePciDeviceId"
    );
    assert_eq!(
        checked::hipDeviceAttributeMaxRegistersPerBlock as i64,
        generated::hipDeviceAttributeMaxRegistersPerBlock as i64,
        "hipDeviceAttributeMaxRegistersPerBlock"
    );
    assert_eq!(
        checked::hipDeviceAttributeMaxSharedMemoryPerBlock as i64,
        generated::hipDeviceAttributeMaxSharedMemoryPerBlock as i64,
        "hipDeviceAttributeMaxSharedMemoryPerBlock"
    );
    assert_eq!(
        checked::hipDeviceAttributeSharedMemPerMultiprocessor as i64,
        generated::hipDeviceAttributeSharedMemPerMultiprocessor as i64,
        "hipDeviceAttributeSharedMemPerMultiprocessor"
    );
    assert_eq!(
        checked::hipDeviceAttributeTotalConstantMemory as i64,
        generated::hipDeviceAttributeTotalConstantMemory as i64,
        "hipDeviceAttributeTotalConstantMemory"
    );
    assert_eq!(
        checked::hipDeviceAttributeWarpSize as i64,
        generated::hipDeviceAttributeWarpSize as i64,
        "hipDeviceAttributeWarpSize"
    );
    assert_eq!(checked::hipMemcpyHostToHost as i64, generated::hipMemcpyHostToHost as i64, "hipMemcpyHostToHost");
    assert_eq!(checked::hipMemcpyHostToDevice as i64, generated::hipMemcpyHostToDevice as i64, "hipMemcpyHostToDevice");
    assert_eq!(checked::hipMemcpyDeviceToHost as i64, generated::hipMemcpyDeviceToHost as i64, "hipMemcpyDeviceToHost");
    assert_eq!(
        checked::hipMemcpyDeviceToDevice as i64,
        generated::hipMemcpyDeviceToDevice as i64,
        "hipMemcpyDeviceToDevice"
    );
    assert_eq!(checked::hipMemcpyDefault as i64, generated::hipMemcpyDefault as i64, "hipMemcpyDefault");
    assert_eq!(checked::HIPRTC_SUCCESS as i64, generated::HIPRTC_SUCCESS as i64, "HIPRTC_SUCCESS");
    assert_eq!(
        checked::HIPRTC_ERROR_OUT_OF_MEMORY as i64,
        generated::HIPRTC_ERROR_OUT_OF_MEMORY as i64,
        "HIPRTC_ERROR_OUT_OF_MEMORY"
    );
    assert_eq!(
        checked::HIPRTC_ERROR_PROGRAM_CREATION_FAILURE as i64,
        generated::HIPRTC_ERROR_PROGRAM_CREATION_FAILURE as i64,
        "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE"
    );
    assert_eq!(
        checked::HIPRTC_ERROR_INVALID_INPUT as i64,
        generated::HIPRTC_ERROR_INVALID_INPUT as i64,
        "HIPRTC_ERROR_INVALID_INPUT"
    );
    assert_eq!(
        checked::HIPRTC_ERROR_INVALID_PROGRAM as i64,
        generated::HIPRTC_ERROR_INVALID_PROGRAM as i64,
        "HIPRTC_ERROR_INVALID_PROGRAM"
    );
    assert_eq!(
        checked::HIPRTC_ERROR_INVALID_OPTION as i64,
        generated::HIPRTC_ERROR_INVALID_OPTION as i64,
        "HIPRTC_ERROR_INVALID_OPTION"
    );
    assert_eq!(
        checked::HIPRTC_ERROR_COMPILATION as i64,
        generated::HIPRTC_ERROR_COMPILATION as i64,
        "HIPRTC_ERROR_COMPILATION"
    );
    assert_eq!(
        checked::HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE as i64,
        generated::HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE as i64,
        "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE"
    );
    assert_eq!(
        checked::HIPRTC_ERROR_INTERNAL_ERROR as i64,
        generated::HIPRTC_ERROR_INTERNAL_ERROR as i64,
        "HIPRTC_ERROR_INTERNAL_ERROR"
    );
}

#[test]
fn typedefs_have_the_header_width_and_signedness() {
    assert_eq!(std::mem::size_of::<checked::hipError_t>(), std::mem::size_of::<generated::hipError_t>(), "hipError_t");
    assert_eq!(checked::hipError_t::MIN, generated::hipError_t::MIN as checked::hipError_t, "hipError_t");
    assert_eq!(
        std::mem::size_of::<checked::hipDeviceAttribute_t>(),
        std::mem::size_of::<generated::hipDeviceAttribute_t>(),
        "hipDeviceAttribute_t"
    );
    assert_eq!(
        checked::hipDeviceAttribute_t::MIN,
        generated::hipDeviceAttribute_t::MIN as checked::hipDeviceAttribute_t,
        "hipDeviceAttribute_t"
    );
    assert_eq!(
        std::mem::size_of::<checked::hipMemcpyKind>(),
        std::mem::size_of::<generated::hipMemcpyKind>(),
        "hipMemcpyKind"
    );
    assert_eq!(checked::hipMemcpyKind::MIN, generated::hipMemcpyKind::MIN as checked::hipMemcpyKind, "hipMemcpyKind");
    assert_eq!(
        std::mem::size_of::<checked::hipDevice_t>(),
        std::mem::size_of::<generated::hipDevice_t>(),
        "hipDevice_t"
    );
    assert_eq!(checked::hipDevice_t::MIN, generated::hipDevice_t::MIN as checked::hipDevice_t, "hipDevice_t");
    assert_eq!(
        std::mem::size_of::<checked::hiprtcResult>(),
        std::mem::size_of::<generated::hiprtcResult>(),
        "hiprtcResult"
    );
    assert_eq!(checked::hiprtcResult::MIN, generated::hiprtcResult::MIN as checked::hiprtcResult, "hiprtcResult");
    assert_eq!(
        std::mem::size_of::<checked::hipStream_t>(),
        std::mem::size_of::<generated::hipStream_t>(),
        "hipStream_t"
    );
    assert_eq!(
        std::mem::size_of::<checked::hipModule_t>(),
        std::mem::size_of::<generated::hipModule_t>(),
        "hipModule_t"
    );
    assert_eq!(
        std::mem::size_of::<checked::hipFunction_t>(),
        std::mem::size_of::<generated::hipFunction_t>(),
        "hipFunction_t"
    );
    assert_eq!(std::mem::size_of::<checked::hipEvent_t>(), std::mem::size_of::<generated::hipEvent_t>(), "hipEvent_t");
    assert_eq!(
        std::mem::size_of::<checked::hiprtcProgram>(),
        std::mem::size_of::<generated::hiprtcProgram>(),
        "hiprtcProgram"
    );
    assert_eq!(
        std::mem::size_of::<checked::hipDeviceptr_t>(),
        std::mem::size_of::<generated::hipDeviceptr_t>(),
        "hipDeviceptr_t"
    );
}

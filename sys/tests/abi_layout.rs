//! Every struct the checked declarations carry, against the SDK 1.0.0 ABI facts (gcc 12 compiling
//! the headers at ROCm/rocm-systems 1b1610fc, x86_64 LP64): size, alignment, and the offset and size
//! of every field. The numbers are copied here; nothing is read from outside the crate.
//!
//! Anonymous unions appear under bindgen's names (`__bindgen_anon_N`), since the declarations
//! mirror bindgen's output.

#![allow(non_camel_case_types)]

use rocprofiler_sdk_sys::checked::*;

mod common;

#[test]
fn client_id() {
    common::check_layout!(rocprofiler_client_id_t, size = 24, align = 8, {
        size: (0, 8),
        name: (8, 8),
        handle: (16, 4),
    });
}

#[test]
fn tool_configure_result() {
    common::check_layout!(rocprofiler_tool_configure_result_t, size = 32, align = 8, {
        size: (0, 8),
        initialize: (8, 8),
        finalize: (16, 8),
        tool_data: (24, 8),
    });
}

#[test]
fn record_header() {
    common::check_layout!(rocprofiler_record_header_t, size = 16, align = 8, {
        __bindgen_anon_1.__bindgen_anon_1.category: (0, 4),
        __bindgen_anon_1.__bindgen_anon_1.kind: (4, 4),
        __bindgen_anon_1.hash: (0, 8),
        payload: (8, 8),
    });
}

#[test]
fn correlation_id() {
    common::check_layout!(rocprofiler_correlation_id_t, size = 24, align = 8, {
        internal: (0, 8),
        external: (8, 8),
        ancestor: (16, 8),
    });
}

#[test]
fn async_correlation_id() {
    common::check_layout!(rocprofiler_async_correlation_id_t, size = 16, align = 8, {
        internal: (0, 8),
        external: (8, 8),
    });
}

#[test]
fn dim3() {
    common::check_layout!(rocprofiler_dim3_t, size = 12, align = 4, {
        x: (0, 4),
        y: (4, 4),
        z: (8, 4),
    });
}

#[test]
fn callback_tracing_record() {
    common::check_layout!(rocprofiler_callback_tracing_record_t, size = 64, align = 8, {
        context_id: (0, 8),
        thread_id: (8, 8),
        correlation_id: (16, 24),
        kind: (40, 4),
        operation: (44, 4),
        phase: (48, 4),
        payload: (56, 8),
    });
}

#[test]
fn kernel_dispatch_info() {
    common::check_layout!(rocprofiler_kernel_dispatch_info_t, size = 128, align = 8, {
        size: (0, 8),
        agent_id: (8, 8),
        queue_id: (16, 8),
        kernel_id: (24, 8),
        dispatch_id: (32, 8),
        private_segment_size: (40, 4),
        group_segment_size: (44, 4),
        workgroup_size: (48, 12),
        grid_size: (60, 12),
        reserved_padding: (72, 56),
    });
}

#[test]
fn buffer_tracing_kernel_dispatch_record() {
    common::check_layout!(rocprofiler_buffer_tracing_kernel_dispatch_record_t, size = 184, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 16),
        thread_id: (32, 8),
        start_timestamp: (40, 8),
        end_timestamp: (48, 8),
        dispatch_info: (56, 128),
    });
}

#[test]
fn buffer_tracing_hip_api_record() {
    common::check_layout!(rocprofiler_buffer_tracing_hip_api_record_t, size = 64, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 24),
        start_timestamp: (40, 8),
        end_timestamp: (48, 8),
        thread_id: (56, 8),
    });
}

#[test]
fn buffer_tracing_hsa_api_record() {
    common::check_layout!(rocprofiler_buffer_tracing_hsa_api_record_t, size = 64, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 24),
        start_timestamp: (40, 8),
        end_timestamp: (48, 8),
        thread_id: (56, 8),
    });
}

#[test]
fn buffer_tracing_marker_api_record() {
    common::check_layout!(rocprofiler_buffer_tracing_marker_api_record_t, size = 64, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 24),
        start_timestamp: (40, 8),
        end_timestamp: (48, 8),
        thread_id: (56, 8),
    });
}

#[test]
fn buffer_tracing_memory_copy_record() {
    common::check_layout!(rocprofiler_buffer_tracing_memory_copy_record_t, size = 96, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 16),
        thread_id: (32, 8),
        start_timestamp: (40, 8),
        end_timestamp: (48, 8),
        dst_agent_id: (56, 8),
        src_agent_id: (64, 8),
        bytes: (72, 8),
        dst_address: (80, 8),
        src_address: (88, 8),
    });
}

#[test]
fn buffer_tracing_memory_allocation_record() {
    common::check_layout!(rocprofiler_buffer_tracing_memory_allocation_record_t, size = 88, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 24),
        thread_id: (40, 8),
        start_timestamp: (48, 8),
        end_timestamp: (56, 8),
        agent_id: (64, 8),
        address: (72, 8),
        allocation_size: (80, 8),
    });
}

#[test]
fn buffer_tracing_scratch_memory_record() {
    common::check_layout!(rocprofiler_buffer_tracing_scratch_memory_record_t, size = 96, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 24),
        agent_id: (40, 8),
        queue_id: (48, 8),
        thread_id: (56, 8),
        start_timestamp: (64, 8),
        end_timestamp: (72, 8),
        flags: (80, 4),
        allocation_size: (88, 8),
    });
}

#[test]
fn buffer_tracing_correlation_id_retirement_record() {
    common::check_layout!(rocprofiler_buffer_tracing_correlation_id_retirement_record_t, size = 32, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        timestamp: (16, 8),
        internal_correlation_id: (24, 8),
    });
}

#[test]
fn buffer_tracing_runtime_initialization_record() {
    common::check_layout!(rocprofiler_buffer_tracing_runtime_initialization_record_t, size = 72, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 24),
        thread_id: (40, 8),
        timestamp: (48, 8),
        version: (56, 8),
        instance: (64, 8),
    });
}

#[test]
fn buffer_tracing_rccl_api_record() {
    common::check_layout!(rocprofiler_buffer_tracing_rccl_api_record_t, size = 64, align = 8, {
        size: (0, 8),
        kind: (8, 4),
        operation: (12, 4),
        correlation_id: (16, 24),
        start_timestamp: (40, 8),
        end_timestamp: (48, 8),
        thread_id: (56, 8),
    });
}

#[test]
fn callback_tracing_code_object_load_data() {
    common::check_layout!(rocprofiler_callback_tracing_code_object_load_data_t, size = 88, align = 8, {
        size: (0, 8),
        code_object_id: (8, 8),
        __bindgen_anon_1.agent_id: (16, 8),
        hsa_agent: (24, 8),
        uri: (32, 8),
        load_base: (40, 8),
        load_size: (48, 8),
        load_delta: (56, 8),
        storage_type: (64, 4),
        __bindgen_anon_2.__bindgen_anon_1.storage_file: (72, 4),
        __bindgen_anon_2.__bindgen_anon_2.memory_base: (72, 8),
        __bindgen_anon_2.__bindgen_anon_2.memory_size: (80, 8),
    });
}

#[test]
fn callback_tracing_code_object_kernel_symbol_register_data() {
    common::check_layout!(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, size = 88, align = 8, {
        size: (0, 8),
        kernel_id: (8, 8),
        code_object_id: (16, 8),
        kernel_name: (24, 8),
        kernel_object: (32, 8),
        kernarg_segment_size: (40, 4),
        kernarg_segment_alignment: (44, 4),
        group_segment_size: (48, 4),
        private_segment_size: (52, 4),
        sgpr_count: (56, 4),
        arch_vgpr_count: (60, 4),
        accum_vgpr_count: (64, 4),
        kernel_code_entry_byte_offset: (72, 8),
        kernel_address: (80, 8),
    });
}

#[test]
fn callback_tracing_kernel_dispatch_data() {
    common::check_layout!(rocprofiler_callback_tracing_kernel_dispatch_data_t, size = 152, align = 8, {
        size: (0, 8),
        start_timestamp: (8, 8),
        end_timestamp: (16, 8),
        dispatch_info: (24, 128),
    });
}

#[test]
fn callback_tracing_memory_copy_data() {
    common::check_layout!(rocprofiler_callback_tracing_memory_copy_data_t, size = 64, align = 8, {
        size: (0, 8),
        start_timestamp: (8, 8),
        end_timestamp: (16, 8),
        dst_agent_id: (24, 8),
        src_agent_id: (32, 8),
        bytes: (40, 8),
        dst_address: (48, 8),
        src_address: (56, 8),
    });
}

#[test]
fn agent_v0() {
    common::check_layout!(rocprofiler_agent_v0_t, size = 312, align = 8, {
        size: (0, 8),
        id: (8, 8),
        type_: (16, 4),
        cpu_cores_count: (20, 4),
        simd_count: (24, 4),
        mem_banks_count: (28, 4),
        caches_count: (32, 4),
        io_links_count: (36, 4),
        cpu_core_id_base: (40, 4),
        simd_id_base: (44, 4),
        max_waves_per_simd: (48, 4),
        lds_size_in_kb: (52, 4),
        gds_size_in_kb: (56, 4),
        num_gws: (60, 4),
        wave_front_size: (64, 4),
        num_xcc: (68, 4),
        cu_count: (72, 4),
        array_count: (76, 4),
        num_shader_banks: (80, 4),
        simd_arrays_per_engine: (84, 4),
        cu_per_simd_array: (88, 4),
        simd_per_cu: (92, 4),
        max_slots_scratch_cu: (96, 4),
        gfx_target_version: (100, 4),
        vendor_id: (104, 2),
        device_id: (106, 2),
        location_id: (108, 4),
        domain: (112, 4),
        drm_render_minor: (116, 4),
        num_sdma_engines: (120, 4),
        num_sdma_xgmi_engines: (124, 4),
        num_sdma_queues_per_engine: (128, 4),
        num_cp_queues: (132, 4),
        max_engine_clk_ccompute: (136, 4),
        max_engine_clk_fcompute: (140, 4),
        sdma_fw_version: (144, 4),
        fw_version: (148, 4),
        capability: (152, 4),
        cu_per_engine: (156, 4),
        max_waves_per_cu: (160, 4),
        family_id: (164, 4),
        workgroup_max_size: (168, 4),
        grid_max_size: (172, 4),
        local_mem_size: (176, 8),
        hive_id: (184, 8),
        gpu_id: (192, 8),
        workgroup_max_dim: (200, 12),
        grid_max_dim: (212, 12),
        mem_banks: (224, 8),
        caches: (232, 8),
        io_links: (240, 8),
        name: (248, 8),
        vendor_name: (256, 8),
        product_name: (264, 8),
        model_name: (272, 8),
        node_id: (280, 4),
        logical_node_id: (284, 4),
        logical_node_type_id: (288, 4),
        runtime_visibility: (292, 4),
        uuid: (296, 16),
    });
}

#[test]
fn agent_cache() {
    common::check_layout!(rocprofiler_agent_cache_t, size = 40, align = 8, {
        processor_id_low: (0, 8),
        size: (8, 8),
        level: (16, 4),
        cache_line_size: (20, 4),
        cache_lines_per_tag: (24, 4),
        association: (28, 4),
        latency: (32, 4),
        type_: (36, 4),
    });
}

#[test]
fn agent_mem_bank() {
    common::check_layout!(rocprofiler_agent_mem_bank_t, size = 24, align = 8, {
        heap_type: (0, 4),
        flags: (4, 4),
        width: (8, 4),
        mem_clk_max: (12, 4),
        size_in_bytes: (16, 8),
    });
}

#[test]
fn counter_info_v0() {
    common::check_layout!(rocprofiler_counter_info_v0_t, size = 48, align = 8, {
        id: (0, 8),
        name: (8, 8),
        description: (16, 8),
        block: (24, 8),
        expression: (32, 8),
    });
}

#[test]
fn counter_info_v1() {
    common::check_layout!(rocprofiler_counter_info_v1_t, size = 88, align = 8, {
        size: (0, 8),
        id: (8, 8),
        name: (16, 8),
        description: (24, 8),
        block: (32, 8),
        expression: (40, 8),
        dimensions_count: (56, 8),
        dimensions: (64, 8),
        dimensions_instances_count: (72, 8),
        dimensions_instances: (80, 8),
    });
}

#[test]
fn counter_record_dimension_info() {
    common::check_layout!(rocprofiler_counter_record_dimension_info_t, size = 24, align = 8, {
        name: (0, 8),
        instance_size: (8, 8),
        id: (16, 8),
    });
}

#[test]
fn counter_dimension_info() {
    common::check_layout!(rocprofiler_counter_dimension_info_t, size = 24, align = 8, {
        size: (0, 8),
        dimension_name: (8, 8),
        index: (16, 8),
    });
}

#[test]
fn counter_record_dimension_instance_info() {
    common::check_layout!(rocprofiler_counter_record_dimension_instance_info_t, size = 40, align = 8, {
        size: (0, 8),
        instance_id: (8, 8),
        counter_id: (16, 8),
        dimensions_count: (24, 8),
        dimensions: (32, 8),
    });
}

#[test]
fn counter_record() {
    common::check_layout!(rocprofiler_counter_record_t, size = 40, align = 8, {
        id: (0, 8),
        counter_value: (8, 8),
        dispatch_id: (16, 8),
        user_data: (24, 8),
        agent_id: (32, 8),
    });
}

#[test]
fn dispatch_counting_service_data() {
    common::check_layout!(rocprofiler_dispatch_counting_service_data_t, size = 168, align = 8, {
        size: (0, 8),
        correlation_id: (8, 16),
        start_timestamp: (24, 8),
        end_timestamp: (32, 8),
        dispatch_info: (40, 128),
    });
}

#[test]
fn dispatch_counting_service_record() {
    common::check_layout!(rocprofiler_dispatch_counting_service_record_t, size = 176, align = 8, {
        size: (0, 8),
        num_records: (8, 8),
        correlation_id: (16, 16),
        start_timestamp: (32, 8),
        end_timestamp: (40, 8),
        dispatch_info: (48, 128),
    });
}

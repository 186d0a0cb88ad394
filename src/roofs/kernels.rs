//! The microbenchmarks' kernels, in PTX the driver compiles for the GPU at hand (sm_70 and
//! later). Each keeps its result alive with a store that never happens (the accumulator would
//! have to equal a constant no input gives), so the compiler cannot drop the work.

/// How many loads one loop trip of the read kernels makes per thread.
pub const LOADS_PER_TRIP: u32 = 4;
/// Bytes per load: one 16-byte vector per thread.
pub const LOAD_BYTES: u64 = 16;
/// FMAs one loop trip of the FMA kernels makes per thread: 8 independent chains, 16 deep, so
/// the loop's own 3 instructions take 2% of the issue slots (FP32 FMAs issue at one per
/// scheduler per cycle on Hopper: any other instruction takes an FMA's slot).
pub const FMAS_PER_TRIP: u32 = 128;
/// The shared-memory tile the shared read kernel loops over, bytes.
pub const SHARED_TILE_BYTES: u32 = 16 * 1024;

/// The kernels' module.
pub fn module() -> String {
    let mut ptx = String::from(".version 7.0\n.target sm_70\n.address_size 64\n\n");
    // cg: cached in L2 only; ca: cached in L1 as well.
    ptx.push_str(&read_global("read_global_cg", "cg"));
    ptx.push_str(&read_global("read_global_ca", "ca"));
    ptx.push_str(READ_SHARED);
    ptx.push_str(&fma("fma_f32", "f32", "0f3F800000"));
    ptx.push_str(&fma("fma_f64", "f64", "0d3FF0000000000000"));
    ptx
}

/// `name(base, mask, trips, sink)`: each thread loads 16 bytes at `base + (offset & mask)`,
/// its offset starting at its index × 16 and stepping by the grid's threads × 16, so a warp
/// reads 512 contiguous bytes and the grid sweeps a window of `mask + 1` bytes (a power of
/// two), 4 loads per trip.
fn read_global(name: &str, cache: &str) -> String {
    let mut body = String::new();
    for k in 0..LOADS_PER_TRIP {
        body.push_str(&format!(
            "    and.b64 %rd6, %rd4, %rd2;\n    add.u64 %rd7, %rd1, %rd6;\n    \
             ld.global.{cache}.v4.u32 {{%r{a}, %r{b}, %r{c}, %r{d}}}, [%rd7];\n    \
             xor.b32 %r8, %r8, %r{a};\n    xor.b32 %r8, %r8, %r{b};\n    xor.b32 %r8, %r8, %r{c};\n    \
             xor.b32 %r8, %r8, %r{d};\n    add.u64 %rd4, %rd4, %rd5;\n",
            a = 10 + 4 * k,
            b = 11 + 4 * k,
            c = 12 + 4 * k,
            d = 13 + 4 * k,
        ));
    }
    format!(
        ".visible .entry {name}(.param .u64 base, .param .u64 mask, .param .u32 trips, .param .u64 sink)\n{{\n    \
         .reg .pred %p<3>;\n    .reg .b32 %r<32>;\n    .reg .b64 %rd<10>;\n    \
         ld.param.u64 %rd1, [base];\n    ld.param.u64 %rd2, [mask];\n    ld.param.u32 %r1, [trips];\n    \
         ld.param.u64 %rd3, [sink];\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n    mov.u32 %r4, %tid.x;\n    \
         mad.lo.u32 %r5, %r2, %r3, %r4;\n    mov.u32 %r6, %nctaid.x;\n    mul.lo.u32 %r7, %r6, %r3;\n    \
         mul.wide.u32 %rd4, %r5, 16;\n    mul.wide.u32 %rd5, %r7, 16;\n    mov.u32 %r8, 0;\n    mov.u32 %r9, 0;\n\
         TRIP:\n    setp.ge.u32 %p1, %r9, %r1;\n    @%p1 bra DONE;\n{body}    add.u32 %r9, %r9, 1;\n    bra TRIP;\n\
         DONE:\n    setp.ne.u32 %p2, %r8, 0x9E3779B9;\n    @%p2 bra END;\n    st.global.u32 [%rd3], %r8;\n\
         END:\n    ret;\n}}\n\n"
    )
}

/// `read_shared(trips, sink)`: each block fills a 16 KiB tile, then each thread loads 16 bytes
/// at a time from it, a warp 512 contiguous bytes (no bank conflict), 4 loads per trip.
const READ_SHARED: &str = "\
.visible .entry read_shared(.param .u32 trips, .param .u64 sink)
{
    .shared .align 16 .b8 tile[16384];
    .reg .pred %p<4>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [trips];
    ld.param.u64 %rd1, [sink];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    shl.b32 %r4, %r2, 4;
    shl.b32 %r5, %r3, 4;
    mov.u32 %r6, tile;
    mov.u32 %r7, %r4;
FILL:
    setp.ge.u32 %p1, %r7, 16384;
    @%p1 bra FILLED;
    add.u32 %r10, %r6, %r7;
    st.shared.v4.u32 [%r10], {%r7, %r2, %r3, %r7};
    add.u32 %r7, %r7, %r5;
    bra FILL;
FILLED:
    bar.sync 0;
    mov.u32 %r8, 0;
    mov.u32 %r9, 0;
    mov.u32 %r7, %r4;
TRIP:
    setp.ge.u32 %p2, %r9, %r1;
    @%p2 bra DONE;
    and.b32 %r10, %r7, 16383;
    add.u32 %r10, %r6, %r10;
    ld.shared.v4.u32 {%r11, %r12, %r13, %r14}, [%r10];
    add.u32 %r7, %r7, %r5;
    and.b32 %r10, %r7, 16383;
    add.u32 %r10, %r6, %r10;
    ld.shared.v4.u32 {%r15, %r16, %r17, %r18}, [%r10];
    add.u32 %r7, %r7, %r5;
    and.b32 %r10, %r7, 16383;
    add.u32 %r10, %r6, %r10;
    ld.shared.v4.u32 {%r19, %r20, %r21, %r22}, [%r10];
    add.u32 %r7, %r7, %r5;
    and.b32 %r10, %r7, 16383;
    add.u32 %r10, %r6, %r10;
    ld.shared.v4.u32 {%r23, %r24, %r25, %r26}, [%r10];
    add.u32 %r7, %r7, %r5;
    xor.b32 %r11, %r11, %r15;
    xor.b32 %r12, %r12, %r16;
    xor.b32 %r13, %r13, %r17;
    xor.b32 %r14, %r14, %r18;
    xor.b32 %r19, %r19, %r23;
    xor.b32 %r20, %r20, %r24;
    xor.b32 %r21, %r21, %r25;
    xor.b32 %r22, %r22, %r26;
    xor.b32 %r11, %r11, %r19;
    xor.b32 %r12, %r12, %r20;
    xor.b32 %r13, %r13, %r21;
    xor.b32 %r14, %r14, %r22;
    xor.b32 %r8, %r8, %r11;
    xor.b32 %r8, %r8, %r12;
    xor.b32 %r8, %r8, %r13;
    xor.b32 %r8, %r8, %r14;
    add.u32 %r9, %r9, 1;
    bra TRIP;
DONE:
    setp.ne.u32 %p3, %r8, 0x9E3779B9;
    @%p3 bra END;
    st.global.u32 [%rd1], %r8;
END:
    ret;
}

";

/// `name(trips, b, c, sink)`: 8 independent chains of `a = a × b + c` per thread, 16 deep per
/// trip. `b` and `c` are parameters, which the compiler reads from the constant bank: three
/// register operands per FMA would contend for the register file's banks.
fn fma(name: &str, ty: &str, one: &str) -> String {
    let mut init = String::new();
    for k in 0..8 {
        init.push_str(&format!("    add.rn.{ty} %a{k}, %seed, {one};\n    mov.{ty} %seed, %a{k};\n"));
    }
    let mut trip = String::new();
    for _ in 0..FMAS_PER_TRIP / 8 {
        for k in 0..8 {
            trip.push_str(&format!("    fma.rn.{ty} %a{k}, %a{k}, %fb, %fc;\n"));
        }
    }
    let mut sum = String::new();
    for k in 1..8 {
        sum.push_str(&format!("    add.rn.{ty} %a0, %a0, %a{k};\n"));
    }
    format!(
        ".visible .entry {name}(.param .u32 trips, .param .{ty} b, .param .{ty} c, .param .u64 sink)\n{{\n    \
         .reg .pred %p<3>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<2>;\n    .reg .{ty} %a<8>;\n    \
         .reg .{ty} %fb;\n    .reg .{ty} %fc;\n    .reg .{ty} %seed;\n    \
         ld.param.u32 %r1, [trips];\n    ld.param.u64 %rd1, [sink];\n    mov.u32 %r2, %tid.x;\n    \
         cvt.rn.{ty}.u32 %seed, %r2;\n    ld.param.{ty} %fb, [b];\n    ld.param.{ty} %fc, [c];\n{init}    mov.u32 %r3, 0;\n\
         TRIP:\n    setp.ge.u32 %p1, %r3, %r1;\n    @%p1 bra DONE;\n{trip}    add.u32 %r3, %r3, 1;\n    bra TRIP;\n\
         DONE:\n{sum}    setp.neu.{ty} %p2, %a0, %fc;\n    @%p2 bra END;\n    st.global.{ty} [%rd1], %a0;\n\
         END:\n    ret;\n}}\n\n"
    )
}

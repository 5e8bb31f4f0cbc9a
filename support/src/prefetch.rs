//! A cache hint for kernels whose reads are known ahead but scattered.

/// Asks the processor to start loading the cache line holding `x`, so that
/// a read a little later does not wait for memory. Only a hint: results are
/// the same without it (and on other architectures it does nothing).
#[inline(always)]
#[allow(unsafe_code)] // the one intrinsic below; see its SAFETY note
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` never faults and changes no memory or register
    // state visible to the program, whatever the address; `x` is moreover a
    // valid reference. SSE, which it needs, is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

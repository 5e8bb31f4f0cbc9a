//! A cache hint for kernels whose reads are known ahead but scattered.

/// Asks the processor to start loading the cache line holding `x`, so that
/// a read a little later does not wait for memory. Only a hint: results are
/// the same without it (and on other architectures it does nothing).
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    line((x as *const T).cast());
}

/// [`prefetch`] for every cache line `values` spans: for data read in an
/// order the hardware prefetcher cannot guess, such as training positions
/// in a random permutation.
#[inline(always)]
pub fn prefetch_slice<T>(values: &[T]) {
    let bytes = std::mem::size_of_val(values);
    let start = values.as_ptr().cast::<u8>();
    let mut offset = 0;
    while offset < bytes {
        line(start.wrapping_add(offset));
        offset += 64;
    }
    if bytes > 0 {
        // The last line, when `values` does not start on a line.
        line(start.wrapping_add(bytes - 1));
    }
}

/// The hint for the cache line holding `address`.
#[inline(always)]
#[allow(unsafe_code)] // the one intrinsic below; see its SAFETY note
fn line(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` never faults and changes no memory or register
    // state visible to the program, whatever the address (the callers'
    // addresses lie moreover inside a live reference). SSE, which it
    // needs, is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

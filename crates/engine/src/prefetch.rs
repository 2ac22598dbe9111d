//! Cache prefetch hints: a request that the processor start loading the cache lines of
//! a value the event loop will read a little later, so that the load it then makes
//! finds them in the cache instead of waiting for memory. A hint changes nothing but
//! timing: the value is not read, nothing is written, and a run's results do not depend
//! on it. On targets other than x86-64 it does nothing.
//!
//! Why: at 10 000 flows the world does not fit in the caches, and the event loop's
//! time there goes to waiting for lines a link wake-up reads first: the packet it
//! delivers (its hop count, flow and kind) and the flow's packed route. The engine
//! knows which packet a link delivers next well before that wake-up (the oldest
//! packet inside the direction), so it asks for that packet's lines when the
//! direction is polled (`Sim::on_link_wake`).

/// Asks for every cache line of `*value` (a packet: 128 bytes over two or three lines).
#[inline(always)]
pub fn lines<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = (value as *const T).cast::<i8>();
        let size = std::mem::size_of::<T>();
        let mut offset = 0;
        while offset < size {
            // SAFETY: a prefetch is only a hint, it never faults or reads into the
            // program: any address is allowed, and these are inside `*value`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
            offset += 64;
        }
        if size > 0 {
            // The last byte's line, which the steps above miss when `*value` does not
            // start a line.
            // SAFETY: as above.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(size - 1)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

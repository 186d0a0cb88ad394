//! The storage unit bindgen emits for C bitfields, under the same name.
//!
//! Tools read these fields; the simulated SDK writes them (bindgen emits both). Bits are numbered
//! from the least significant bit of the first byte, as on every little-endian target gcc and
//! clang lay bitfields out on.

/// A C bitfield's storage: `N` bytes that several narrow fields share.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone, PartialEq, Eq, Hash)]
pub struct __BindgenBitfieldUnit<Storage> {
    storage: Storage,
}

impl<const N: usize> __BindgenBitfieldUnit<[u8; N]> {
    /// Wraps raw storage bytes.
    pub const fn new(storage: [u8; N]) -> Self {
        Self { storage }
    }

    /// The field of `width` bits that starts at bit `offset`.
    pub fn get(&self, offset: usize, width: u8) -> u64 {
        debug_assert!(width <= 64 && offset + usize::from(width) <= N * 8);
        (0..usize::from(width)).fold(0u64, |value, i| {
            let bit = offset + i;
            let set = (self.storage[bit / 8] >> (bit % 8)) & 1;
            value | (u64::from(set) << i)
        })
    }

    /// Sets the field of `width` bits that starts at bit `offset` to the low bits of `value`.
    pub fn set(&mut self, offset: usize, width: u8, value: u64) {
        debug_assert!(width <= 64 && offset + usize::from(width) <= N * 8);
        for i in 0..usize::from(width) {
            let bit = offset + i;
            let mask = 1u8 << (bit % 8);
            if (value >> i) & 1 == 1 {
                self.storage[bit / 8] |= mask;
            } else {
                self.storage[bit / 8] &= !mask;
            }
        }
    }
}

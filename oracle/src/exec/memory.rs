//! Byte-addressed simulated memory whose untouched bytes hold pseudo-random initial contents.

use super::value::mix;
use crate::ir::ArrayId;
use std::collections::HashMap;

/// One memory space instance family (global, the shared memory of blocks, or thread-local
/// memory). `owner` distinguishes instances: the block for shared, the thread for local.
#[derive(Debug, Default)]
pub struct Memory {
    /// Distinguishes the initial contents of different spaces with the same seed.
    salt: u64,
    /// Bytes written so far, by (array, owner, byte address).
    bytes: HashMap<(ArrayId, u64, u64), u8>,
}

impl Memory {
    /// An empty memory; `salt` makes its initial contents differ from other spaces'.
    pub fn new(salt: u64) -> Memory {
        Memory {
            salt,
            bytes: HashMap::new(),
        }
    }

    fn byte(&self, seed: u64, array: ArrayId, owner: u64, addr: u64) -> u8 {
        match self.bytes.get(&(array, owner, addr)) {
            Some(&b) => b,
            None => mix(&[seed, self.salt, array.0 as u64, owner, addr]) as u8,
        }
    }

    /// Little-endian value of the `size` bytes at `addr` (only the low 8 bytes are kept).
    pub fn load(&self, seed: u64, array: ArrayId, owner: u64, addr: u64, size: u32) -> u64 {
        (0..size.min(8) as u64).fold(0u64, |acc, i| {
            acc | (self.byte(seed, array, owner, addr.wrapping_add(i)) as u64) << (8 * i)
        })
    }

    /// Stores `value` little-endian into `size` bytes at `addr` (bytes past the 8th get 0).
    pub fn store(&mut self, array: ArrayId, owner: u64, addr: u64, size: u32, value: u64) {
        for i in 0..size as u64 {
            let b = if i < 8 { (value >> (8 * i)) as u8 } else { 0 };
            self.bytes.insert((array, owner, addr.wrapping_add(i)), b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_memory_round_trip_and_initial_contents() {
        let mut m = Memory::new(1);
        let a = ArrayId(0);
        let before = m.load(5, a, 0, 100, 4);
        assert_eq!(before, m.load(5, a, 0, 100, 4), "initial contents are deterministic");
        m.store(a, 0, 100, 4, 0xDEAD_BEEF_1234);
        assert_eq!(m.load(5, a, 0, 100, 4), 0xBEEF_1234);
        assert_eq!(m.load(5, a, 0, 101, 1), 0x12);
        assert_eq!(m.load(5, a, 0, 100, 2), 0x1234);
    }
}

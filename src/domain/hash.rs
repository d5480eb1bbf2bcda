//! FNV-1a, the core's one hash: tiny, and stable across platforms and builds, so the keys
//! it makes (a call's identity, a message's text) stay valid in storage across updates.

/// The standard FNV-1a offset basis.
pub const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// A running FNV-1a hash, fed byte by byte.
#[derive(Debug, Clone, Copy)]
pub struct Fnv1a(u64);

impl Fnv1a {
    pub fn with_seed(seed: u64) -> Fnv1a {
        Fnv1a(seed)
    }

    pub fn byte(&mut self, b: u8) {
        self.0 ^= u64::from(b);
        self.0 = self.0.wrapping_mul(PRIME);
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// FNV-1a of `bytes` from `seed`.
pub fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    let mut h = Fnv1a::with_seed(seed);
    bytes.iter().for_each(|&b| h.byte(b));
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_test_vectors() {
        assert_eq!(fnv1a(b"", BASIS), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a", BASIS), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar", BASIS), 0x8594_4171_f739_67e8);
    }
}

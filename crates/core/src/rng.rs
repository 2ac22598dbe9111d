//! Seeded random streams, one per component.
//!
//! Each component (a hiccup schedule, a RED queue, a flow's start time, ...) asks for
//! its own stream by a stable name and index. The stream's key is a hash of
//! (run seed, name, index), so adding a component never shifts the draws of another,
//! and a stream's draws do not depend on the order in which components are built or on
//! how many threads run repetitions.

use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

/// The generator every component uses: ChaCha12, portable and reproducible.
pub type SimRng = ChaCha12Rng;

/// Derives independent streams from one run seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    pub fn new(seed: u64) -> Self {
        RngStreams { seed }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The stream for component `name` number `index` (e.g. `("hiccup", link)`).
    pub fn stream(&self, name: &str, index: u64) -> SimRng {
        let mut key = [0u8; 32];
        let mut h = splitmix64(self.seed ^ fnv1a(name.as_bytes()));
        h = splitmix64(h ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for chunk in key.chunks_exact_mut(8) {
            h = splitmix64(h);
            chunk.copy_from_slice(&h.to_le_bytes());
        }
        SimRng::from_seed(key)
    }

    /// The seed of repetition `rep` of a run whose base seed is `self.seed()`.
    /// Repetition 0 uses the base seed itself, so `--seed S --reps 1` replays
    /// repetition 0 of `--seed S --reps R`.
    pub fn repetition_seed(base: u64, rep: u64) -> u64 {
        if rep == 0 {
            base
        } else {
            splitmix64(base ^ splitmix64(rep))
        }
    }
}

/// A [`SimRng`]'s exact place in its stream in 56 bytes, against the generator's 320
/// (its 64-word block buffer is recomputed on [`RngState::resume`]): for a component
/// that only carries a stream to hand on, such as a plain link direction, which never
/// draws and gives its stream to the staged form (one per link direction, 40 000 in a
/// 10 000-flow dumbbell).
///
/// ChaCha's output is a function of its key, stream number and word position
/// (`rand_chacha`'s `get_seed`, `get_stream`, `get_word_pos`), so a generator rebuilt
/// from them draws what the original would have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RngState {
    seed: [u8; 32],
    stream: u64,
    /// The word position (a `u128`) as two halves, so the struct needs no 16-byte
    /// alignment: low, high.
    word_pos: [u64; 2],
}

impl RngState {
    /// The place `rng` has reached.
    pub fn of(rng: &SimRng) -> RngState {
        let pos = rng.get_word_pos();
        RngState {
            seed: rng.get_seed(),
            stream: rng.get_stream(),
            word_pos: [pos as u64, (pos >> 64) as u64],
        }
    }

    /// A generator at that place. One that has not drawn yet (word 0 of stream 0, as
    /// every [`RngStreams::stream`] starts) is rebuilt from its key alone: seeking
    /// computes a 64-word block at once, which the first draw would do anyway.
    pub fn resume(&self) -> SimRng {
        let mut rng = SimRng::from_seed(self.seed);
        if self.stream != 0 {
            rng.set_stream(self.stream);
        }
        let pos = u128::from(self.word_pos[0]) | u128::from(self.word_pos[1]) << 64;
        if pos != 0 {
            rng.set_word_pos(pos);
        }
        rng
    }
}

/// FNV-1a 64-bit: a fixed, documented string hash (std's hasher may change between
/// Rust releases, which would silently change every result).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser (Steele, Lea, Flood 2014), a good 64-bit mixer.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn draws(mut r: SimRng) -> Vec<u64> {
        (0..4).map(|_| r.random()).collect()
    }

    #[test]
    fn same_seed_name_and_index_give_the_same_stream() {
        let s = RngStreams::new(42);
        assert_eq!(draws(s.stream("hiccup", 0)), draws(s.stream("hiccup", 0)));
    }

    #[test]
    fn streams_differ_by_name_index_and_seed() {
        let s = RngStreams::new(42);
        let base = draws(s.stream("hiccup", 0));
        assert_ne!(base, draws(s.stream("hiccup", 1)));
        assert_ne!(base, draws(s.stream("red", 0)));
        assert_ne!(base, draws(RngStreams::new(43).stream("hiccup", 0)));
    }

    #[test]
    fn creating_other_streams_does_not_shift_a_stream() {
        let s = RngStreams::new(7);
        let alone = draws(s.stream("start", 3));
        let _other = draws(s.stream("hiccup", 0));
        assert_eq!(alone, draws(s.stream("start", 3)));
    }

    #[test]
    fn a_resumed_state_draws_what_the_generator_would_have() {
        let mut rng = RngStreams::new(3).stream("link", 5);
        // Word positions inside a block, at its last word (a u64 draw then spans two
        // blocks) and in later blocks.
        for skip in [0, 1, 62, 63, 64, 127, 1000] {
            for _ in 0..skip {
                let _: u32 = rng.random();
            }
            let state = RngState::of(&rng);
            let mut resumed = state.resume();
            assert_eq!(RngState::of(&resumed), state);
            let (a, b): (Vec<u64>, Vec<u64>) = (0..70)
                .map(|_| (rng.random::<u64>(), resumed.random::<u64>()))
                .unzip();
            assert_eq!(a, b, "after {skip} words");
        }
        let mut other_stream = RngStreams::new(3).stream("link", 6);
        other_stream.set_stream(9);
        let mut resumed = RngState::of(&other_stream).resume();
        assert_eq!(other_stream.random::<u64>(), resumed.random::<u64>());
        assert!(std::mem::size_of::<RngState>() <= 56);
    }

    #[test]
    fn repetition_zero_is_the_base_seed_and_others_differ() {
        assert_eq!(RngStreams::repetition_seed(9, 0), 9);
        assert_ne!(
            RngStreams::repetition_seed(9, 1),
            RngStreams::repetition_seed(9, 2)
        );
    }
}
